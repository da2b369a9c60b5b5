; Definitions -------------------------------------------------------------
(function_declaration
  name: (identifier) @name
  parameters: (parameter_list) @params
  result: (_)? @return) @def.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier)? @receiver_var
      type: [(pointer_type (type_identifier) @receiver) (type_identifier) @receiver
             (pointer_type (generic_type type: (type_identifier) @receiver)) (generic_type type: (type_identifier) @receiver)]))
  name: (field_identifier) @name
  parameters: (parameter_list) @params
  result: (_)? @return) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name type: (_) @underlying) @def.type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name parameters: (parameter_list) @params result: (_)? @return) @def.method
(field_declaration name: (field_identifier) @name type: (_) @return) @def.field
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name type: (_)? @vartype value: (expression_list . (_) @value)) @def.variable))
(source_file (var_declaration (var_spec name: (identifier) @name type: (_)? @vartype !value) @def.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name type: (_)? @vartype value: (expression_list . (_) @value)) @def.variable)))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name type: (_)? @vartype !value) @def.variable)))

; References --------------------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (selector_expression operand: (_) @qual field: (field_identifier) @name)) @ref.call
(composite_literal type: (type_identifier) @name) @ref.type
(composite_literal type: (qualified_type package: (package_identifier) @qual name: (type_identifier) @name)) @ref.type
(parameter_declaration type: (type_identifier) @name) @ref.type
(parameter_declaration type: (pointer_type (type_identifier) @name)) @ref.type
(parameter_declaration type: (qualified_type package: (package_identifier) @qual name: (type_identifier) @name)) @ref.type
(parameter_declaration type: (pointer_type (qualified_type package: (package_identifier) @qual name: (type_identifier) @name))) @ref.type
(field_declaration type: (type_identifier) @name) @ref.type
(field_declaration type: (pointer_type (type_identifier) @name)) @ref.type
(struct_type (field_declaration_list (field_declaration . type: (type_identifier) @name))) @ref.inherit
(struct_type (field_declaration_list (field_declaration . type: (qualified_type package: (package_identifier) @qual name: (type_identifier) @name)))) @ref.inherit
; An interface embedding another (`type ReadCloser interface { Reader; Closer }`) has its methods too.
(interface_type (type_elem . (type_identifier) @name .)) @ref.inherit
(interface_type (type_elem . (qualified_type package: (package_identifier) @qual name: (type_identifier) @name) .)) @ref.inherit

; Imports -----------------------------------------------------------------
(import_declaration) @import

; Receiver types --------------------------------------------------------------
; A local or parameter whose type the code states: `x := &T{}`, `x := T{...}`, `var x T`, `var x = &T{}`,
; `func f(x *T)`, also `pkg.T`. `x.M()` then reaches T's method M (receiver_types.py, the graph).
(short_var_declaration
  left: (expression_list . (identifier) @name)
  right: (expression_list . [(composite_literal type: (_) @type)
                             (unary_expression operand: (composite_literal type: (_) @type))])) @bind.local
(var_spec name: (identifier) @name type: (_) @type) @bind.local
(var_spec name: (identifier) @name
  value: (expression_list . [(composite_literal type: (_) @type)
                             (unary_expression operand: (composite_literal type: (_) @type))])) @bind.local
(parameter_declaration name: (identifier) @name type: (_) @type) @bind.local
; `func f(opts ...Option)`: opts is a []Option (`for _, o := range opts`: an Option)
(variadic_parameter_declaration name: (identifier) @name type: (_) @type) @bind.local
; `x, ok := y.(T)`: x is a T
(short_var_declaration
  left: (expression_list . (identifier) @name)
  right: (expression_list . (type_assertion_expression type: (_) @type))) @bind.local
; `for _, x := range xs` (also `xs[k]` of a map): x is an element of xs
(range_clause left: (expression_list (_) . (identifier) @name) right: (_) @element) @bind.local
; Any other local (`x := f()`, `w, err := pkg.New()`, `for i := iter(v); ...`): a chain the graph evaluates
; through the function's stated result; `for _, x := range xs` binds x to no known type.
(short_var_declaration
  left: (expression_list . (identifier) @name)
  right: (expression_list . (_) @value)) @bind.local
(var_spec name: (identifier) @name value: (expression_list . (_) @value)) @bind.local
; Names bound to no known type, so that no package-level name of the same name is taken for them: the
; other names of `a, err := ...`, range and type-switch variables, `case v := <-ch`.
(short_var_declaration left: (expression_list (_) . (identifier) @name)) @bind.local
(range_clause left: (expression_list . (identifier) @name)) @bind.local
(type_switch_statement alias: (expression_list (identifier) @name)) @bind.local
(receive_statement left: (expression_list (identifier) @name)) @bind.local



; Bindings that hide an outer name from a bare-name use (brace_scopes.py): the `@bind.local` names above
; (parameters, receivers, named results, local variables), and these. Patterns rooted at the declaration:
; one rooted at a block would stay open through the block's subtree, which on deeply nested code costs its
; depth at every node. The functions and blocks around them are queried only when a name needs them.
(variadic_parameter_declaration name: (identifier) @local.param)
(type_parameter_declaration name: (identifier) @local.tparam)
(const_spec name: (identifier) @local.after) @decl
