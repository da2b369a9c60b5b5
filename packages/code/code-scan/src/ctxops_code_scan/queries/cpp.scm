; Definitions -------------------------------------------------------------
(function_definition
  type: (_)? @return
  declarator: [(function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name parameters: (parameter_list) @params)
               (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name parameters: (parameter_list) @params))
               (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name parameters: (parameter_list) @params))]) @def.function
(function_definition
  type: (_)? @return
  declarator: [(function_declarator declarator: (qualified_identifier scope: (_) @receiver name: (_) @name) parameters: (parameter_list) @params)
               (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: (_) @name) parameters: (parameter_list) @params))
               (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: (_) @name) parameters: (parameter_list) @params))]) @def.method
(field_declaration type: (_) @return declarator: (function_declarator declarator: (field_identifier) @name parameters: (parameter_list) @params)) @def.method
(field_declaration_list (declaration declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @params)) @def.method)
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(enumerator name: (identifier) @name) @def.constant
(preproc_def name: (identifier) @name) @def.macro
(preproc_function_def name: (identifier) @name parameters: (preproc_params) @params) @def.macro
(field_declaration type: (_) @return declarator: (field_identifier) @name) @def.field
(translation_unit (declaration type: (_) @return declarator: (init_declarator declarator: (identifier) @name)) @def.variable)
(namespace_definition name: (_) @name) @scope.namespace

; References --------------------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (field_expression argument: (_) @qual field: (field_identifier) @name)) @ref.call
(call_expression function: (qualified_identifier scope: (_) @qual name: (identifier) @name)) @ref.call
(call_expression function: (template_function name: (identifier) @name)) @ref.call
(new_expression type: (type_identifier) @name) @ref.call
(base_class_clause (type_identifier) @name) @ref.inherit
(base_class_clause (qualified_identifier scope: (_) @qual name: (type_identifier) @name)) @ref.inherit
(parameter_declaration type: (type_identifier) @name) @ref.type
(declaration type: (type_identifier) @name) @ref.type
(field_declaration type: (type_identifier) @name) @ref.type
(template_argument_list (type_descriptor type: (type_identifier) @name)) @ref.type

; Imports -----------------------------------------------------------------
(preproc_include) @import
