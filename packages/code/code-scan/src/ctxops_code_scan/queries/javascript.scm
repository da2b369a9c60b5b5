; Definitions -------------------------------------------------------------
(function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @def.function
(generator_function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @def.function
(class_declaration name: (identifier) @name) @def.class
(method_definition name: (_) @name parameters: (formal_parameters) @params) @def.method
(field_definition property: (_) @name) @def.field
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function parameters: (formal_parameters) @params)
          (function_expression parameters: (formal_parameters) @params)]) @def.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable)))

; References --------------------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (member_expression object: (_) @qual property: (property_identifier) @name)) @ref.call
(new_expression constructor: (identifier) @name) @ref.call
(new_expression constructor: (member_expression object: (_) @qual property: (property_identifier) @name)) @ref.call
(class_heritage (identifier) @name) @ref.inherit
(class_heritage (member_expression object: (_) @qual property: (property_identifier) @name)) @ref.inherit

; Imports -----------------------------------------------------------------
(import_statement) @import
(export_statement source: (_)) @import  ; a re-export (`export * from './x'`) imports what it re-exports



; Bindings that hide an outer name from a bare-name use, and the scopes they bind in (brace_scopes.py):
; single-node patterns only (a pattern with a child step stays open through the node's subtree, which on
; deeply nested code costs its depth at every node). Read after the sweep; blocks only when needed.
[(function_declaration) (generator_function_declaration) (function_expression) (generator_function)
 (arrow_function) (method_definition)] @local.function
[(lexical_declaration) (variable_declaration) (class_declaration) (catch_clause) (for_in_statement)] @local.declaration
