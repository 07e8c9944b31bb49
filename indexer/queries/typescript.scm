; inherits: javascript
; TypeScript (and TSX): what JavaScript has, plus abstract classes and interfaces.

(abstract_class_declaration name: (type_identifier) @class.introduce) @range
(interface_declaration name: (type_identifier) @class.introduce) @range
(function_signature name: (identifier) @function.introduce) @range
(abstract_method_signature name: (property_identifier) @method.introduce) @range
