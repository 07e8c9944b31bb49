; YAML: environment variables declared in docker compose (`environment:`), GitHub
; Actions and other CI (`env:`) and Kubernetes containers (`env: - name:`).

; environment: {KEY: value}
((block_mapping_pair
  key: (flow_node) @_key
  value: (block_node
    (block_mapping
      (block_mapping_pair
        key: (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @env.introduce)) @range)))
  (#any-of? @_key "environment" "env"))

; environment: [KEY=value, KEY]
((block_mapping_pair
  key: (flow_node) @_key
  value: (block_node
    (block_sequence
      (block_sequence_item
        (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @env.introduce)) @range)))
  (#any-of? @_key "environment" "env")
  (#set! resolver "env-assignment"))

; Kubernetes: env: [{name: KEY, value: ...}]
((block_mapping_pair
  key: (flow_node) @_key
  value: (block_node
    (block_sequence
      (block_sequence_item
        (block_node
          (block_mapping
            (block_mapping_pair
              key: (flow_node) @_name
              value: (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @env.introduce))) @range)))))
  (#eq? @_key "env") (#eq? @_name "name"))

; .pre-commit-config.yaml: `- repo: https://github.com/psf/black` + `rev: 23.1.0`
; -> deps/black at 23.1.0 (`local` and `meta` hooks name no dependency)
((block_mapping
  (block_mapping_pair
    key: (flow_node) @_repo
    value: (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @dependency.introduce))
  (block_mapping_pair
    key: (flow_node) @_rev
    value: (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @version))) @range
  (#eq? @_repo "repo") (#eq? @_rev "rev")
  (#set! files ".pre-commit-config.yaml .pre-commit-config.yml")
  (#set! resolver "pre-commit"))
