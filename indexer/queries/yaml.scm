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
