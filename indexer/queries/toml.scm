; TOML manifests: pyproject.toml (PEP 621 and Poetry), Cargo.toml, Pipfile and the
; TOML lock files (poetry.lock, uv.lock, Cargo.lock) -> deps/name, with the declared
; version as @version where the manifest states one (`name = "^1"`,
; `name = { version = "1" }`, `[dependencies.name] version = "1"`).

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

; --- versions: the same names again, with their declared version ----------------------
((table (dotted_key) @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce (string) @version) @range)
  (#match? @_table "^tool\\.poetry\\.(dev-)?dependencies$|^tool\\.poetry\\.group\\.[^.]+\\.dependencies$")
  (#not-eq? @dependency.introduce "python")
  (#set! files "pyproject.toml"))

((table (dotted_key) @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce
    (inline_table (pair (bare_key) @_version (string) @version))) @range)
  (#match? @_table "^tool\\.poetry\\.(dev-)?dependencies$|^tool\\.poetry\\.group\\.[^.]+\\.dependencies$")
  (#not-eq? @dependency.introduce "python")
  (#eq? @_version "version")
  (#set! files "pyproject.toml"))

((table [(bare_key) (dotted_key)] @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce (string) @version) @range)
  (#match? @_table "^((workspace|target\\..+)\\.)?(dev-|build-)?dependencies$")
  (#set! files "Cargo.toml"))

((table [(bare_key) (dotted_key)] @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce
    (inline_table (pair (bare_key) @_version (string) @version))) @range)
  (#match? @_table "^((workspace|target\\..+)\\.)?(dev-|build-)?dependencies$")
  (#eq? @_version "version")
  (#set! files "Cargo.toml"))

((table (dotted_key (_) @_table . (bare_key) @dependency.introduce)
  (pair (bare_key) @_version (string) @version)) @range
  (#match? @_table "^((workspace|target\\..+)\\.)?(dev-|build-)?dependencies$")
  (#eq? @_version "version")
  (#set! files "Cargo.toml"))

; Pipfile: [packages] requests = "==2.31", django = {version = ">=4"}
((table (bare_key) @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce) @range)
  (#any-of? @_table "packages" "dev-packages")
  (#set! files "Pipfile"))

((table (bare_key) @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce (string) @version) @range)
  (#any-of? @_table "packages" "dev-packages")
  (#set! files "Pipfile"))

((table (bare_key) @_table
  (pair [(bare_key) (quoted_key)] @dependency.introduce
    (inline_table (pair (bare_key) @_version (string) @version))) @range)
  (#any-of? @_table "packages" "dev-packages")
  (#eq? @_version "version")
  (#set! files "Pipfile"))

; lock files: [[package]] name = "x" version = "1.2.3" (the resolved version)
((table_array_element (bare_key) @_table
  (pair (bare_key) @_name (string) @dependency.introduce)
  (pair (bare_key) @_version (string) @version)) @range
  (#eq? @_table "package") (#eq? @_name "name") (#eq? @_version "version")
  (#set! files "poetry.lock uv.lock Cargo.lock"))
