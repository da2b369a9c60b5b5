; Definitions -------------------------------------------------------------
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name parameters: (formal_parameters) @params) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration
  type: (_) @return
  name: (identifier) @name
  parameters: (formal_parameters) @params) @def.method
(constructor_declaration name: (identifier) @name parameters: (formal_parameters) @params) @def.method
(field_declaration type: (_) @return declarator: (variable_declarator name: (identifier) @name)) @def.field
(constant_declaration type: (_) @return declarator: (variable_declarator name: (identifier) @name)) @def.constant
(enum_constant name: (identifier) @name) @def.constant

; References --------------------------------------------------------------
(method_invocation object: (_) @qual name: (identifier) @name) @ref.call
(method_invocation !object name: (identifier) @name) @ref.call
(object_creation_expression type: (type_identifier) @name) @ref.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @ref.call
(superclass (type_identifier) @name) @ref.inherit
(superclass (generic_type (type_identifier) @name)) @ref.inherit
(super_interfaces (type_list (type_identifier) @name)) @ref.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @ref.inherit
(extends_interfaces (type_list (type_identifier) @name)) @ref.inherit
(formal_parameter type: (type_identifier) @name) @ref.type
(field_declaration type: (type_identifier) @name) @ref.type
(local_variable_declaration type: (type_identifier) @name) @ref.type
(method_declaration type: (type_identifier) @name) @ref.type
(type_arguments (type_identifier) @name) @ref.type

; Imports -----------------------------------------------------------------
(import_declaration) @import
