; Ruby: classes, modules, methods; Rails migrations; ENV reads.

(class name: (constant) @class.introduce) @range
(module name: (constant) @class.introduce) @range
(method name: (identifier) @function.introduce) @range
(singleton_method name: (identifier) @function.introduce) @range

; constants: `TIMEOUT = 30` at top level or in a class/module body (Ruby forbids them
; inside methods)
(program (assignment left: (constant) @constant.introduce) @range)
(body_statement (assignment left: (constant) @constant.introduce) @range)

; --- Rails migrations ------------------------------------------------------------------
((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table.introduce)
  block: (_)? @call) @range
  (#eq? @_fn "create_table")
  (#set! resolver "rails-table"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table.reference)
  block: (_) @call) @range
  (#eq? @_fn "change_table")
  (#set! resolver "rails-table"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table.remove)) @range
  (#eq? @_fn "drop_table"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table.remove . [(simple_symbol) (string)])) @range
  (#eq? @_fn "rename_table"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] . [(simple_symbol) (string)] @table.introduce)) @range
  (#eq? @_fn "rename_table"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table . [(simple_symbol) (string)] @column.introduce)) @range
  (#eq? @_fn "add_column"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table . [(simple_symbol) (string)] @column.introduce)) @range
  (#any-of? @_fn "add_reference" "add_belongs_to")
  (#set! resolver "rails-reference"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table . [(simple_symbol) (string)] @column.remove)) @range
  (#eq? @_fn "remove_column"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table . [(simple_symbol) (string)] @column.reference)) @range
  (#any-of? @_fn "change_column" "change_column_default" "change_column_null" "add_index"))

; add_index :t, ... names the table; its columns may come as an array (`%w[a b]`,
; `%i[a b]`, `[:a, :b]`)
((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table.reference)) @range
  (#eq? @_fn "add_index"))

((call
  method: (identifier) @_fn
  arguments: (argument_list
    . [(simple_symbol) (string)] @table
    . [(symbol_array (bare_symbol) @column.reference)
       (string_array (bare_string) @column.reference)
       (array [(simple_symbol) (string)] @column.reference)])) @range
  (#eq? @_fn "add_index"))

; remove_columns :t, :a, :b (also `*%i[a b]`)
((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table [(simple_symbol) (string)] @column.remove)) @range
  (#eq? @_fn "remove_columns"))

((call
  method: (identifier) @_fn
  arguments: (argument_list
    . [(simple_symbol) (string)] @table
    [(symbol_array (bare_symbol) @column.remove)
     (splat_argument (symbol_array (bare_symbol) @column.remove))])) @range
  (#eq? @_fn "remove_columns"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table . [(simple_symbol) (string)] @column.remove . [(simple_symbol) (string)])) @range
  (#eq? @_fn "rename_column"))

((call
  method: (identifier) @_fn
  arguments: (argument_list . [(simple_symbol) (string)] @table . [(simple_symbol) (string)] . [(simple_symbol) (string)] @column.introduce)) @range
  (#eq? @_fn "rename_column"))

; --- environment -----------------------------------------------------------------------
((element_reference object: (constant) @_env . (string) @env.reference) @range
  (#eq? @_env "ENV"))

((call
  receiver: (constant) @_env
  method: (identifier) @_fn
  arguments: (argument_list . (string) @env.reference)) @range
  (#eq? @_env "ENV") (#any-of? @_fn "fetch" "key?" "include?"))

; --- Rails routes (config/routes.rb): get "/users/:id", to: "users#show" ---------------
((call
  method: (identifier) @http.method
  arguments: (argument_list . (string) @route.introduce)) @range
  (#any-of? @http.method "get" "post" "put" "patch" "delete")
  (#set! files "routes.rb")
  (#set! resolver "leading-slash"))

; --- Gemfile: gem "rails", "~> 7.0" -> deps/rails (the first version argument) ----------
((call
  method: (identifier) @_gem
  arguments: (argument_list . (string) @dependency.introduce)) @range
  (#eq? @_gem "gem")
  (#set! files "Gemfile"))

((call
  method: (identifier) @_gem
  arguments: (argument_list . (string) @dependency.introduce . (string) @version)) @range
  (#eq? @_gem "gem")
  (#set! files "Gemfile"))
