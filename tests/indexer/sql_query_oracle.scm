; SQL DDL and migration files (tree-sitter-sql, DerekStride). Identifiers fold to lower
; case and lose their quotes and schema in the grammar's builders.

; CREATE TABLE t (...): the table and every column
(create_table (object_reference name: (_) @table.introduce)) @range

(create_table
  (object_reference name: (_) @table)
  (column_definitions
    (column_definition name: (_) @column.introduce) @range))

; ALTER TABLE t ADD/DROP/RENAME/ALTER COLUMN: one pattern, each action an alternative
; (one pattern per action made the query's compile and every ALTER TABLE's match pay
; for the shared `alter_table (object_reference ...)` five times; a RENAME COLUMN
; matches two alternatives, as it matched two patterns)
(alter_table
  (object_reference name: (_) @table)
  [(add_column (column_definition name: (_) @column.introduce)) @range
   (drop_column name: (_) @column.remove) @range
   (rename_column old_name: (_) @column.remove) @range
   (rename_column new_name: (_) @column.introduce) @range
   (alter_column name: (_) @column.reference) @range])

; ALTER TABLE t RENAME TO u: t goes, u arrives; any other ALTER TABLE references t
(alter_table
  (object_reference name: (_) @table.remove)
  (rename_object (object_reference name: (_) @table.introduce))) @range

(alter_table (object_reference name: (_) @table.reference)) @range

(drop_table (object_reference name: (_) @table.remove)) @range

; CREATE INDEX ix ON t (a, b): the table and the indexed columns are referenced
(create_index
  (object_reference name: (_) @table.reference)) @range

(create_index
  (object_reference name: (_) @table)
  (index_fields
    [(field column: (_) @column.reference)
     (field function: (invocation (term value: (field name: (_) @column.reference))))])) @range

; DROP INDEX ix ON t (MySQL) references t; a bare DROP INDEX names no table
(drop_index (object_reference name: (_) @table.reference)) @range

; a column's REFERENCES other(col) points at other.col
(column_definition
  (keyword_references)
  (object_reference name: (_) @table.reference)) @range

(column_definition
  (keyword_references)
  (object_reference name: (_) @table)
  .
  (identifier) @column.reference) @range
