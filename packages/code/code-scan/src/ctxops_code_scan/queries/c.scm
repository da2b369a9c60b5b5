; Definitions -------------------------------------------------------------
(function_definition
  type: (_) @return
  declarator: [(function_declarator declarator: (identifier) @name parameters: (parameter_list) @params)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @params))
               (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @params)))]) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @def.type
(enumerator name: (identifier) @name) @def.constant
(preproc_def name: (identifier) @name) @def.macro
(preproc_function_def name: (identifier) @name parameters: (preproc_params) @params) @def.macro
(field_declaration type: (_) @return declarator: (field_identifier) @name) @def.field
(translation_unit (declaration type: (_) @return declarator: (init_declarator declarator: (identifier) @name)) @def.variable)
(translation_unit (declaration type: (_) @return declarator: (identifier) @name) @def.variable)

; References --------------------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (field_expression argument: (_) @qual field: (field_identifier) @name)) @ref.call
(parameter_declaration type: (type_identifier) @name) @ref.type
(parameter_declaration type: (struct_specifier name: (type_identifier) @name !body)) @ref.type
(declaration type: (type_identifier) @name) @ref.type
(field_declaration type: (type_identifier) @name) @ref.type
(type_definition type: (struct_specifier name: (type_identifier) @name !body)) @ref.type

; Imports -----------------------------------------------------------------
(preproc_include) @import
