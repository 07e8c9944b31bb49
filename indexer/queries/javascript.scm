; JavaScript (typescript.scm and tsx inherit this file): definitions, Express/Fastify
; routes, process.env, Knex and Sequelize migrations.

; --- definitions -----------------------------------------------------------------------
(function_declaration name: (identifier) @function.introduce) @range
(generator_function_declaration name: (identifier) @function.introduce) @range
(class_declaration name: (_) @class.introduce) @range
(method_definition name: (property_identifier) @method.introduce) @range

(lexical_declaration
  (variable_declarator
    name: (identifier) @function.introduce
    value: [(arrow_function) (function_expression) (generator_function)])) @range

(variable_declaration
  (variable_declarator
    name: (identifier) @function.introduce
    value: [(arrow_function) (function_expression) (generator_function)])) @range

; module-level constants, exported or not: `const TIMEOUT = 30`, `export const API = {...}`
; (a constant whose value is a function is that function, see above)
(program
  (lexical_declaration
    "const"
    (variable_declarator name: (identifier) @constant.introduce)) @range)

(program
  (export_statement
    declaration: (lexical_declaration
      "const"
      (variable_declarator name: (identifier) @constant.introduce))) @range)

; --- routes: app.get('/path', handler) -------------------------------------------------
((call_expression
  function: (member_expression
    object: (_) @_object
    property: (property_identifier) @http.method)
  arguments: (arguments . [(string) (template_string)] @route.introduce . (_))) @range
  (#any-of? @http.method "get" "post" "put" "patch" "delete" "head" "options" "all")
  (#not-match? @_object "^(axios|http|https|fetch|request|client|api|superagent|got|ky|\\$)$"))

; part: env process
; (a part runs only in files holding one of its words, which every match holds: see
; builtin_queries in indexer/queries.py)
; --- environment variables -------------------------------------------------------------
((member_expression
  object: (member_expression object: (identifier) @_process property: (property_identifier) @_env)
  property: (property_identifier) @env.reference) @range
  (#eq? @_process "process") (#eq? @_env "env"))

((subscript_expression
  object: (member_expression object: (identifier) @_process property: (property_identifier) @_env)
  index: (string) @env.reference) @range
  (#eq? @_process "process") (#eq? @_env "env"))

; part: migrations
; --- Knex: knex.schema.createTable('users', (t) => { t.string('email') }) --------------
((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table.introduce . [(arrow_function) (function_expression)] @call)) @range
  (#any-of? @_fn "createTable" "createTableIfNotExists")
  (#set! resolver "knex"))

((call_expression
  function: (member_expression object: (_) @_schema property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table.reference . [(arrow_function) (function_expression)] @call)) @range
  (#any-of? @_fn "alterTable" "table")
  (#match? @_schema "schema$")
  (#set! resolver "knex"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table.remove)) @range
  (#any-of? @_fn "dropTable" "dropTableIfExists"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table.remove . (string))) @range
  (#eq? @_fn "renameTable"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) . (string) @table.introduce)) @range
  (#eq? @_fn "renameTable"))

; --- Sequelize: queryInterface.createTable('users', { email: {...} }) ------------------
((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table.introduce . (object))) @range
  (#eq? @_fn "createTable"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments
    . (string) @table
    . (object (pair key: [(property_identifier) (string)] @column.introduce) @range)))
  (#eq? @_fn "createTable"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table . (string) @column.introduce . (_))) @range
  (#eq? @_fn "addColumn"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table . (string) @column.remove)) @range
  (#eq? @_fn "removeColumn"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table . (string) @column.reference . (object))) @range
  (#eq? @_fn "changeColumn"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table . (string) @column.remove . (string))) @range
  (#eq? @_fn "renameColumn"))

((call_expression
  function: (member_expression property: (property_identifier) @_fn)
  arguments: (arguments . (string) @table . (string) . (string) @column.introduce)) @range
  (#eq? @_fn "renameColumn"))
