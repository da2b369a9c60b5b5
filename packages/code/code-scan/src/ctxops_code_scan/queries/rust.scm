; Definitions -------------------------------------------------------------
(function_item
  name: (identifier) @name
  parameters: (parameters) @params
  return_type: (_)? @return) @def.function
(function_signature_item
  name: (identifier) @name
  parameters: (parameters) @params
  return_type: (_)? @return) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(type_item name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name type: (_)? @return) @def.constant
(static_item name: (identifier) @name type: (_)? @return) @def.variable
(mod_item name: (identifier) @name body: (_)) @def.module
(macro_definition name: (identifier) @name) @def.macro
(field_declaration name: (field_identifier) @name type: (_) @return) @def.field
(impl_item type: [(type_identifier) @name (generic_type type: (type_identifier) @name)
                  (scoped_type_identifier name: (type_identifier) @name)]) @scope.impl

; References --------------------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (scoped_identifier path: (_) @qual name: (identifier) @name)) @ref.call
(call_expression function: (field_expression value: (_) @qual field: (field_identifier) @name)) @ref.call
(call_expression function: (generic_function function: (identifier) @name)) @ref.call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @qual name: (identifier) @name))) @ref.call
(macro_invocation macro: (identifier) @name) @ref.call
(struct_expression name: (type_identifier) @name) @ref.type
(impl_item trait: (type_identifier) @name) @ref.inherit
(impl_item trait: (scoped_type_identifier path: (_) @qual name: (type_identifier) @name)) @ref.inherit
(trait_bounds (type_identifier) @name) @ref.inherit
(parameter type: (type_identifier) @name) @ref.type
(parameter type: (reference_type type: (type_identifier) @name)) @ref.type
(generic_type type: (type_identifier) @name) @ref.type
(type_arguments (type_identifier) @name) @ref.type
(field_declaration type: (type_identifier) @name) @ref.type
(function_item return_type: (type_identifier) @name) @ref.type

; Imports -----------------------------------------------------------------
(use_declaration) @import
