; package.json: dependencies of every kind -> deps/name.

((document
  (object
    (pair
      key: (string (string_content) @_section)
      value: (object (pair key: (string) @dependency.introduce) @range))))
  (#any-of? @_section "dependencies" "devDependencies" "peerDependencies" "optionalDependencies")
  (#set! files "package.json"))

; ... with the version range as written ("^4.17.21", "workspace:*")
((document
  (object
    (pair
      key: (string (string_content) @_section)
      value: (object (pair key: (string) @dependency.introduce value: (string) @version) @range))))
  (#any-of? @_section "dependencies" "devDependencies" "peerDependencies" "optionalDependencies")
  (#set! files "package.json"))
