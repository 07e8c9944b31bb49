; Python: definitions, SQLAlchemy / Django models, Alembic operations, FastAPI and
; Flask routes, environment variables. Capture names: see docs/indexer.md.

; --- definitions: nesting gives Class.method and outer.inner ---------------------------
(function_definition name: (identifier) @function.introduce) @range
(class_definition name: (identifier) @class.introduce) @range

; --- constants and settings: module- and class-level assignments ------------------------
; `TIMEOUT = 30`, `DEBUG: bool = False`, `A, B = 1, 2` at module level (also inside a
; top-level if/try, as settings modules do) and in a class body (`Order.STATUS_CHOICES`).
(module
  (expression_statement
    (assignment left: [(identifier) @constant.introduce
                       (pattern_list (identifier) @constant.introduce)])) @range)

; In a class body only UPPER_CASE names are constants: a lower-case class attribute is a
; field (`email: Mapped[str] = mapped_column()`, `name = models.CharField()`, a
; dataclass's or a form's field), which is its column where a framework says so and
; nothing of its own otherwise; as a constant it sat at the column's position with no
; history and hid the column's.
(class_definition
  body: (block
    (expression_statement
      (assignment left: [(identifier) @constant.introduce
                         (pattern_list (identifier) @constant.introduce)])) @range)
  (#match? @constant.introduce "^_*[A-Z][A-Z0-9_]*$"))

; (separate patterns, not one alternation: a query's cost is per pattern shape, and
; the alternation made every Python scan a quarter slower; elif and try-else are rare)
(module (if_statement consequence: (block
  (expression_statement (assignment left: (identifier) @constant.introduce)) @range)))
(module (if_statement alternative: (else_clause body: (block
  (expression_statement (assignment left: (identifier) @constant.introduce)) @range))))
(module (try_statement body: (block
  (expression_statement (assignment left: (identifier) @constant.introduce)) @range)))
(module (try_statement (except_clause (block
  (expression_statement (assignment left: (identifier) @constant.introduce)) @range))))

; part: orm Column _column Table _table create_index _index Mapped
; (a part runs only in files holding one of its words, which every match holds: see
; builtin_queries in indexer/queries.py)
; --- SQLAlchemy declarative ------------------------------------------------------------
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @_tablename
        right: (string) @table.introduce)))
  (#eq? @_tablename "__tablename__")) @range

(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @column.introduce
        right: (call
          function: [(identifier) @_fn (attribute attribute: (identifier) @_fn)]) @call) @range))
  (#any-of? @_fn "Column" "mapped_column")
  (#set! resolver "sqlalchemy"))

; SQLAlchemy 2.0: an annotation alone maps a column (`token: Mapped[Optional[str]]`)
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @column.introduce
        type: (type [(subscript value: [(identifier) @_fn (attribute attribute: (identifier) @_fn)])
                     (generic_type (identifier) @_fn)])
        !right) @range))
  (#eq? @_fn "Mapped")
  (#set! resolver "sqlalchemy"))

; SQLAlchemy Core: Table("users", metadata, Column("email", ...))
(call
  function: [(identifier) @_fn (attribute attribute: (identifier) @_fn)]
  arguments: (argument_list . (string) @table.introduce)
  (#eq? @_fn "Table")) @range

(call
  function: [(identifier) @_fn (attribute attribute: (identifier) @_fn)]
  arguments: (argument_list
    . (string) @table
    (call
      function: [(identifier) @_col (attribute attribute: (identifier) @_col)]
      arguments: (argument_list . (string) @column.introduce)) @range)
  (#any-of? @_fn "Table" "create_table")
  (#eq? @_col "Column"))

; part:
; --- Django models ---------------------------------------------------------------------
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @column.introduce
        right: (call
          function: [(identifier) @_fn (attribute attribute: (identifier) @_fn)]) @call) @range))
  (#match? @_fn "^([A-Z][A-Za-z]*Field|ForeignKey)$")
  (#set! resolver "django"))

; part: django-meta db_table
; class Meta: db_table = "t" (the resolver keeps it for a model only)
(class_definition
  body: (block
    (class_definition
      name: (identifier) @_meta
      body: (block
        (expression_statement
          (assignment left: (identifier) @_key right: (string) @table.introduce)) @range)))
  (#eq? @_meta "Meta") (#eq? @_key "db_table")
  (#set! resolver "django-table"))

; part: django-migrations
; --- Django migrations: each operation of a `NNNN_name.py` in a `migrations/` folder;
; the resolver reads its arguments (the operation's name is the capture's text) ---------
((call
  function: [(identifier) @table.reference
             (attribute attribute: (identifier) @table.reference)]
  arguments: (argument_list)) @call @range
  (#any-of? @table.reference
    "CreateModel" "DeleteModel" "RenameModel" "AlterModelTable"
    "AddField" "RemoveField" "AlterField" "RenameField"
    "AddIndex" "RemoveIndex" "RenameIndex" "AddConstraint" "RemoveConstraint"
    "AlterUniqueTogether" "AlterIndexTogether" "AlterOrderWithRespectTo" "RunSQL")
  (#set! files "[0-9][0-9][0-9][0-9]_*.py")
  (#set! resolver "django-migration"))

; part: orm
; --- Alembic ---------------------------------------------------------------------------
((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @table.introduce)) @range
  (#eq? @_op "op") (#eq? @_fn "create_table"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @table.remove)) @range
  (#eq? @_op "op") (#eq? @_fn "drop_table"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @table.remove . (string) @_new)) @range
  (#eq? @_op "op") (#eq? @_fn "rename_table"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) . (string) @table.introduce)) @range
  (#eq? @_op "op") (#eq? @_fn "rename_table"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list
    . (string) @table
    . (call arguments: (argument_list . (string) @column.introduce)))) @range
  (#eq? @_op "op") (#eq? @_fn "add_column"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @table . (string) @column.remove)) @range
  (#eq? @_op "op") (#eq? @_fn "drop_column"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @table . (string) @column.reference)) @range @call
  (#eq? @_op "op") (#eq? @_fn "alter_column")
  (#set! resolver "alembic-alter"))

; create_index(name, "t", ["c"]): the name may be `op.f("ix_…")`
((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (_) . (string) @table . (list (string) @column.reference))) @range
  (#eq? @_op "op") (#eq? @_fn "create_index"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (_) . (string) @table.reference)) @range
  (#eq? @_op "op") (#any-of? @_fn "create_index" "drop_index"))

((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list
    (keyword_argument name: (identifier) @_kw value: (string) @table.reference))) @range
  (#eq? @_op "op") (#any-of? @_fn "create_index" "drop_index") (#eq? @_kw "table_name"))

; `with op.batch_alter_table("t") as batch_op:` alters t
((call
  function: (attribute object: (identifier) @_op attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @table.reference)) @range
  (#eq? @_op "op") (#eq? @_fn "batch_alter_table"))

; inside `with op.batch_alter_table("users") as batch_op:`
((call
  function: (attribute attribute: (identifier) @_fn)
  arguments: (argument_list . (call arguments: (argument_list . (string) @column.introduce)))) @range
  (#eq? @_fn "add_column")
  (#set! resolver "alembic-batch"))

((call
  function: (attribute attribute: (identifier) @_fn)
  arguments: (argument_list . (string) @column.remove .)) @range
  (#eq? @_fn "drop_column")
  (#set! resolver "alembic-batch"))

((call
  function: (attribute attribute: (identifier) @_fn)
  arguments: (argument_list . (_) . (list (string) @column.reference))) @range
  (#eq? @_fn "create_index")
  (#set! resolver "alembic-batch"))

; part:
; --- routes: FastAPI / Flask / Starlette-style decorators -------------------------------
(decorated_definition
  (decorator
    (call
      function: (attribute attribute: (identifier) @http.method)
      arguments: (argument_list . (string) @route.introduce)) @call)
  (#any-of? @http.method "get" "post" "put" "patch" "delete" "head" "options")
  (#set! resolver "router-prefix")) @range

(decorated_definition
  (decorator
    (call
      function: (attribute attribute: (identifier) @_fn)
      arguments: (argument_list . (string) @route.introduce)) @call)
  (#eq? @_fn "route")
  (#set! resolver "flask")) @range

; part: env env
; --- environment variables -------------------------------------------------------------
((subscript
  value: (attribute object: (identifier) @_os attribute: (identifier) @_environ)
  subscript: (string) @env.reference) @range
  (#eq? @_os "os") (#eq? @_environ "environ"))

((call
  function: (attribute
    object: (attribute object: (identifier) @_os attribute: (identifier) @_environ)
    attribute: (identifier) @_get)
  arguments: (argument_list . (string) @env.reference)) @range
  (#eq? @_os "os") (#eq? @_environ "environ") (#any-of? @_get "get" "setdefault" "pop"))

((call
  function: [(attribute object: (identifier) @_os attribute: (identifier) @_fn) (identifier) @_fn]
  arguments: (argument_list . (string) @env.reference)) @range
  (#any-of? @_fn "getenv" "getenvb"))

((subscript
  value: (identifier) @_environ
  subscript: (string) @env.reference) @range
  (#eq? @_environ "environ"))

((call
  function: (attribute object: (identifier) @_environ attribute: (identifier) @_get)
  arguments: (argument_list . (string) @env.reference)) @range
  (#eq? @_environ "environ") (#eq? @_get "get"))

; part:
; Django urls.py: path("users/<int:pk>/", view) -> route/ANY /users/{pk}
((call
  function: (identifier) @_fn
  arguments: (argument_list . (string) @route.introduce)) @range
  (#eq? @_fn "path")
  (#set! files "urls.py")
  (#set! method "ANY")
  (#set! resolver "leading-slash"))
