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

(type_declaration (type_spec name: (type_identifier) @class.introduce)) @range

((call_expression
  function: (selector_expression operand: (identifier) @_os field: (field_identifier) @_fn)
  arguments: (argument_list . (interpreted_string_literal) @env.reference)) @range
  (#eq? @_os "os") (#any-of? @_fn "Getenv" "LookupEnv" "Setenv" "Unsetenv"))
