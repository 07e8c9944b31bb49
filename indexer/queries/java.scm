; Java: classes, interfaces, enums, records, methods, constructors; JPA entities;
; System.getenv.

(class_declaration name: (identifier) @class.introduce) @range
(interface_declaration name: (identifier) @class.introduce) @range
(enum_declaration name: (identifier) @class.introduce) @range
(record_declaration name: (identifier) @class.introduce) @range
(method_declaration name: (identifier) @method.introduce) @range
(constructor_declaration name: (identifier) @method.introduce) @range

; constants: `static final` fields, and interface fields (implicitly static final)
((field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator name: (identifier) @constant.introduce)) @range
  (#match? @_modifiers "(^|\\s)static(\\s|$)")
  (#match? @_modifiers "(^|\\s)final(\\s|$)"))
(constant_declaration
  declarator: (variable_declarator name: (identifier) @constant.introduce)) @range

; --- JPA -------------------------------------------------------------------------------
(class_declaration
  (modifiers
    (annotation
      name: (identifier) @_table
      arguments: (annotation_argument_list
        (element_value_pair key: (identifier) @_key value: (string_literal) @table.introduce))))
  (#eq? @_table "Table") (#eq? @_key "name")) @range

(class_declaration
  (modifiers [(marker_annotation name: (identifier) @_entity)
              (annotation name: (identifier) @_entity)])
  name: (identifier) @table.introduce
  (#eq? @_entity "Entity")
  (#set! resolver "jpa-table")) @range

(field_declaration
  (modifiers [(marker_annotation name: (identifier) @_column)
              (annotation name: (identifier) @_column)])
  declarator: (variable_declarator name: (identifier) @column.introduce)
  (#any-of? @_column "Column" "Id" "JoinColumn")
  (#set! resolver "jpa")) @range

; --- environment -----------------------------------------------------------------------
((method_invocation
  object: (identifier) @_system
  name: (identifier) @_getenv
  arguments: (argument_list . (string_literal) @env.reference)) @range
  (#eq? @_system "System") (#eq? @_getenv "getenv"))

; --- Spring MVC routes: @GetMapping("/x") under an optional class @RequestMapping ------
((method_declaration
  (modifiers
    (annotation
      name: (identifier) @http.method
      arguments: (annotation_argument_list . (string_literal) @route.introduce))))
  (#any-of? @http.method "GetMapping" "PostMapping" "PutMapping" "PatchMapping" "DeleteMapping")
  (#set! resolver "spring")) @range

((method_declaration
  (modifiers
    (annotation
      name: (identifier) @http.method
      arguments: (annotation_argument_list
        (element_value_pair key: (identifier) @_key value: (string_literal) @route.introduce)))))
  (#any-of? @http.method "GetMapping" "PostMapping" "PutMapping" "PatchMapping" "DeleteMapping")
  (#any-of? @_key "value" "path")
  (#set! resolver "spring")) @range

; @PostMapping without a path: the class's mapping itself
((method_declaration
  (modifiers
    (marker_annotation name: (identifier) @http.method @route.introduce)))
  (#any-of? @http.method "GetMapping" "PostMapping" "PutMapping" "PatchMapping" "DeleteMapping")
  (#set! resolver "spring")) @range
