; TOML manifests: pyproject.toml (PEP 621 and Poetry) and Cargo.toml -> deps/name.

; PEP 621: [project] dependencies = ["stripe>=5"]
((table (bare_key) @_table
  (pair (bare_key) @_key (array (string) @dependency.introduce)))
  (#eq? @_table "project") (#eq? @_key "dependencies")
  (#set! files "pyproject.toml")
  (#set! resolver "pep508"))

; PEP 621: [project.optional-dependencies] and PEP 735 [dependency-groups]
((table (dotted_key) @_table
  (pair (_) (array (string) @dependency.introduce)))
  (#eq? @_table "project.optional-dependencies")
  (#set! files "pyproject.toml")
  (#set! resolver "pep508"))

((table (bare_key) @_table
  (pair (_) (array (string) @dependency.introduce)))
  (#eq? @_table "dependency-groups")
  (#set! files "pyproject.toml")
  (#set! resolver "pep508"))

; build requirements
((table (bare_key) @_table
  (pair (bare_key) @_key (array (string) @dependency.introduce)))
  (#eq? @_table "build-system") (#eq? @_key "requires")
  (#set! files "pyproject.toml")
  (#set! resolver "pep508"))

; Poetry: [tool.poetry.dependencies], [tool.poetry.group.<g>.dependencies]
((table (dotted_key) @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce) @range)
  (#match? @_table "^tool\\.poetry\\.(dev-)?dependencies$|^tool\\.poetry\\.group\\.[^.]+\\.dependencies$")
  (#not-eq? @dependency.introduce "python")
  (#set! files "pyproject.toml"))

; Cargo: [dependencies] name = "1", plus dev-, build-, workspace and target tables
((table [(bare_key) (dotted_key)] @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce) @range)
  (#match? @_table "^((workspace|target\\..+)\\.)?(dev-|build-)?dependencies$")
  (#set! files "Cargo.toml"))

; Cargo: [dependencies.serde] version = "1"
((table (dotted_key (_) @_table . (bare_key) @dependency.introduce)) @range
  (#match? @_table "^((workspace|target\\..+)\\.)?(dev-|build-)?dependencies$")
  (#set! files "Cargo.toml"))
