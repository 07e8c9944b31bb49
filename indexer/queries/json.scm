; package.json: dependencies of every kind -> deps/name.

((document
  (object
    (pair
      key: (string (string_content) @_section)
      value: (object (pair key: (string) @dependency.introduce) @range))))
  (#any-of? @_section "dependencies" "devDependencies" "peerDependencies" "optionalDependencies")
  (#set! files "package.json"))
