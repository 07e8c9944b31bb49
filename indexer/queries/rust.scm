; Rust: functions, types, methods inside `impl` blocks (qualified by the type), env vars.

(function_item name: (identifier) @function.introduce) @range
(function_signature_item name: (identifier) @function.introduce) @range
(struct_item name: (type_identifier) @class.introduce) @range
(enum_item name: (type_identifier) @class.introduce) @range
(trait_item name: (type_identifier) @class.introduce) @range
(union_item name: (type_identifier) @class.introduce) @range

; `const` and `static` items at module level and in impl/trait/mod bodies
; (`impl Config { const MAX: u32 = 8; }` -> Config.MAX)
(source_file
  [(const_item name: (identifier) @constant.introduce)
   (static_item name: (identifier) @constant.introduce)] @range)
(declaration_list
  [(const_item name: (identifier) @constant.introduce)
   (static_item name: (identifier) @constant.introduce)] @range)

; an impl block qualifies its functions: impl<T> Stack<T> { fn push } -> Stack.push
(impl_item
  type: [(type_identifier) @container.name
         (generic_type type: (type_identifier) @container.name)
         (scoped_type_identifier name: (type_identifier) @container.name)]) @container

; env::var("X"), std::env::var("X"), env!("X"), option_env!("X")
((call_expression
  function: (scoped_identifier path: (_) @_path name: (identifier) @_fn)
  arguments: (arguments . (string_literal) @env.reference)) @range
  (#match? @_path "(^|::)env$") (#any-of? @_fn "var" "var_os" "set_var" "remove_var"))

((macro_invocation
  macro: (identifier) @_macro
  (token_tree . (string_literal) @env.reference)) @range
  (#any-of? @_macro "env" "option_env"))

; axum: Router::new().route("/users/:id", get(show).post(update))
((call_expression
  function: (field_expression field: (field_identifier) @_route)
  arguments: (arguments . (string_literal) @route.introduce . (call_expression) @call)) @range
  (#eq? @_route "route")
  (#set! resolver "axum"))
