; Go: functions, types, methods (qualified by their receiver type), os.Getenv.

(function_declaration name: (identifier) @function.introduce) @range

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @method.introduce) @range

(type_declaration (type_spec name: (type_identifier) @class.introduce) @range)

; package-level `const` and `var`, alone or in a block (`const ( A = iota; B )`)
(source_file
  (const_declaration (const_spec name: (identifier) @constant.introduce) @range))
(source_file
  (var_declaration (var_spec name: (identifier) @constant.introduce) @range))
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @constant.introduce) @range)))

((call_expression
  function: (selector_expression operand: (identifier) @_os field: (field_identifier) @_fn)
  arguments: (argument_list . (interpreted_string_literal) @env.reference)) @range
  (#eq? @_os "os") (#any-of? @_fn "Getenv" "LookupEnv" "Setenv" "Unsetenv"))

; --- routes ----------------------------------------------------------------------------
; gin/echo `r.GET("/users/:id", h)`, chi `r.Get("/users/{id}", h)`
((call_expression
  function: (selector_expression field: (field_identifier) @http.method)
  arguments: (argument_list . (interpreted_string_literal) @route.introduce . (_))) @range
  (#any-of? @http.method
    "GET" "POST" "PUT" "PATCH" "DELETE" "HEAD" "OPTIONS" "Any"
    "Get" "Post" "Put" "Patch" "Delete" "Head" "Options"))

; net/http `mux.HandleFunc("GET /users/{id}", h)` (Go 1.22 patterns; no method: any)
((call_expression
  function: (selector_expression field: (field_identifier) @_fn)
  arguments: (argument_list . (interpreted_string_literal) @route.introduce . (_))) @range
  (#any-of? @_fn "HandleFunc" "Handle")
  (#set! resolver "method-in-path"))
