; Definitions -------------------------------------------------------------
(function_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @params
  return_type: (_)? @return) @def.function
(generator_function_declaration
  name: (identifier) @name
  parameters: (formal_parameters) @params
  return_type: (_)? @return) @def.function
(function_signature
  name: (identifier) @name
  parameters: (formal_parameters) @params
  return_type: (_)? @return) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(enum_body name: (property_identifier) @name @def.constant)
(enum_body (enum_assignment name: (property_identifier) @name) @def.constant)
(method_definition
  name: (_) @name
  parameters: (formal_parameters) @params
  return_type: (_)? @return) @def.method
(abstract_method_signature
  name: (_) @name
  parameters: (formal_parameters) @params
  return_type: (_)? @return) @def.method
(method_signature
  name: (_) @name
  parameters: (formal_parameters) @params
  return_type: (_)? @return) @def.method
(public_field_definition name: (_) @name type: (_)? @return value: (_)? @value) @def.field
(property_signature name: (_) @name type: (_)? @return) @def.field
(internal_module name: (_) @name) @def.module
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function parameters: (formal_parameters) @params return_type: (_)? @return)
          (function_expression parameters: (formal_parameters) @params return_type: (_)? @return)]) @def.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(program (lexical_declaration (variable_declarator name: (identifier) @name type: (_)? @return value: (_)? @value) @def.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name type: (_)? @return value: (_)? @value) @def.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name type: (_)? @return value: (_)? @value) @def.variable)))

; References --------------------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (member_expression object: (_) @qual property: (property_identifier) @name)) @ref.call
; `await f<T>()` / `await o.m<T>()`: tree-sitter reads the type arguments as applied to `await f`, the call's
; function an await_expression; the call is f's (tsc), one row as for `await f()` (session 24)
(call_expression function: (await_expression (identifier) @name) type_arguments: (_)) @ref.call
(call_expression function: (await_expression (member_expression object: (_) @qual property: (property_identifier) @name)) type_arguments: (_)) @ref.call
(new_expression constructor: (identifier) @name) @ref.call
(new_expression constructor: (member_expression object: (_) @qual property: (property_identifier) @name)) @ref.call
(extends_clause value: (identifier) @name) @ref.inherit
(extends_clause value: (member_expression object: (_) @qual property: (property_identifier) @name)) @ref.inherit
(implements_clause (type_identifier) @name) @ref.inherit
(extends_type_clause type: (type_identifier) @name) @ref.inherit
; ... also generic and namespaced bases: `interface A extends B<T>, ns.C<T>, ns.D`, `implements I<T>` (the
; name of a generic base is not also a `type` reference: see extract.py)
(extends_type_clause type: (generic_type name: (type_identifier) @name)) @ref.inherit
(extends_type_clause type: (generic_type name: (nested_type_identifier module: (_) @qual name: (type_identifier) @name))) @ref.inherit
(extends_type_clause type: (nested_type_identifier module: (_) @qual name: (type_identifier) @name)) @ref.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @ref.inherit
; `type AnyRouter = Router<any, any>`: an alias has its target's members (issue 24)
(type_alias_declaration value: (type_identifier) @name) @ref.inherit
(type_alias_declaration value: (generic_type name: (type_identifier) @name)) @ref.inherit
; `type P = A & B<T> & C`: an intersection has each part's members (chevrotain's `MixedInParser`); only an
; alias's own value is read as one (extract.py `_aliased_intersection`), not an intersection written elsewhere
(intersection_type (type_identifier) @name) @ref.inherit
(intersection_type (generic_type name: (type_identifier) @name)) @ref.inherit
; `type Maybe<T> = Just<T> | Nothing<T>`: a union alias has what its parts have (true-myth); as above, only an
; alias's own value is read (a union written elsewhere, `x: A | B`, binds its local: see below)
(union_type (type_identifier) @name) @ref.inherit
(union_type (generic_type name: (type_identifier) @name)) @ref.inherit
; `interface Nothing<T> extends Omit<MaybeImpl<T>, 'value'>`: a utility type over a base keeps the base's members
; (extract.py `_UTILITY_BASES` keeps only those: `extends Box<K>` does not have K's members)
(extends_type_clause type: (generic_type type_arguments: (type_arguments . (type_identifier) @name))) @ref.inherit
(extends_type_clause type: (generic_type type_arguments: (type_arguments . (generic_type name: (type_identifier) @name)))) @ref.inherit
(type_annotation (type_identifier) @name) @ref.type
(generic_type name: (type_identifier) @name) @ref.type
(type_arguments (type_identifier) @name) @ref.type
(nested_type_identifier module: (_) @qual name: (type_identifier) @name) @ref.type

; Imports -----------------------------------------------------------------
(import_statement) @import
(export_statement source: (_)) @import  ; a re-export (`export * from './x'`) imports what it re-exports

; Receiver types --------------------------------------------------------------
; A parameter or local whose class the code states (`x: Subject<T>`, `const y = new Subject()`); class
; fields (`private s: Scheduler`) come from the field definitions above. `x.m()` and `this.s.m()` then
; reach the class's (or interface's) method m (receiver_types.py, the graph).
(required_parameter pattern: (identifier) @name
  type: (type_annotation [(type_identifier) @type (generic_type) @type (nested_type_identifier) @type])) @bind.local
(optional_parameter pattern: (identifier) @name
  type: (type_annotation [(type_identifier) @type (generic_type) @type (nested_type_identifier) @type])) @bind.local
(variable_declarator name: (identifier) @name
  type: (type_annotation [(type_identifier) @type (generic_type) @type (nested_type_identifier) @type])) @bind.local
(variable_declarator name: (identifier) @name value: (new_expression constructor: (identifier) @type)) @bind.local
; ... also unions: `T | null`, `T | undefined` (what is called on it, when it is called, is T's), `A | B` (each
; member's method); and intersections `A & B` (a member is the part's that declares it: read as the union is).
(required_parameter pattern: (identifier) @name type: (type_annotation [(union_type) (intersection_type)] @type)) @bind.local
(optional_parameter pattern: (identifier) @name type: (type_annotation [(union_type) (intersection_type)] @type)) @bind.local
(variable_declarator name: (identifier) @name type: (type_annotation [(union_type) (intersection_type)] @type)) @bind.local
; ... also arrays `T[]` / `Array<T>` (what `xs[i]`, `xs.pop()`, `for (const x of xs)` and `xs.forEach((x) => ...)`
; give is a T; the graph reads the element steps).
(required_parameter pattern: (identifier) @name type: (type_annotation (array_type) @type)) @bind.local
(optional_parameter pattern: (identifier) @name type: (type_annotation (array_type) @type)) @bind.local
(variable_declarator name: (identifier) @name type: (type_annotation (array_type) @type)) @bind.local
; A local without a written type: what its value is (a chain of names, calls and members; `new K()`;
; `a ?? b`; `x as K`), evaluated across files by the graph (type_exprs.py).
(variable_declarator name: (identifier) @name !type value: (_) @value) @bind.local
; `const { a, b: c } = value`: the members of the value.
(variable_declarator name: (object_pattern) @pattern value: (_) @value) @bind.destructure
; `for (const x of xs)`: an element of xs.
(for_in_statement left: (identifier) @name "of" right: (_) @value) @bind.element
; `for (const [k, v] of m)`: v is the second item of an element (a Map's value; `xs.entries()`' element).
(for_in_statement left: (array_pattern . (_) . (identifier) @name .) "of" right: (_) @value) @bind.element
; A callback's parameters take their types from the callee's signature (contextual typing):
; `operate((source, subscriber) => ...)`, `new Observable((subscriber) => ...)`, `xs.forEach((x) => ...)`.
; (`@args`: the argument list as captured, not `fn.parent`, which costs the node's depth in tree-sitter)
(call_expression function: (identifier) @callee arguments: (arguments [(arrow_function) (function_expression)] @fn) @args) @bind.callback
(call_expression function: (member_expression object: (_) @qual property: (property_identifier) @callee)
  arguments: (arguments [(arrow_function) (function_expression)] @fn) @args) @bind.callback
(new_expression constructor: (identifier) @callee arguments: (arguments [(arrow_function) (function_expression)] @fn) @args) @bind.callback
; ... also a function written as a member of an object literal (`f({m: (gen) => ...})`, `const d: D = {m: (gen) =>
; ...}`): the member's parameter types, read on the declared type of f's parameter or of d (extract.py
; `_literal_callback`; one step from the pair: a pattern from the call down stayed open through nested calls)
(pair key: (property_identifier) @key value: [(arrow_function) (function_expression)] @fn) @bind.member
; Parameter properties: `constructor(private s: Scheduler)` declares the field `s`.
(required_parameter (accessibility_modifier) pattern: (identifier) @name type: (type_annotation) @type) @bind.prop
(required_parameter "readonly" pattern: (identifier) @name type: (type_annotation) @type) @bind.prop
; `function f(this: K, ...)`: what `this` is inside (a function that is not a method).
(required_parameter pattern: (this) type: (type_annotation) @type) @bind.this
; `return value`: what a function without a stated result gives (when all its returns agree).
(return_statement (_) @value) @bind.return



; Bindings that hide an outer name from a bare-name use, and the scopes they bind in (brace_scopes.py):
; single-node patterns only (a pattern with a child step stays open through the node's subtree, which on
; deeply nested code costs its depth at every node). Read after the sweep; blocks only when needed.
[(function_declaration) (generator_function_declaration) (function_expression) (generator_function)
 (arrow_function) (method_definition)] @local.function
[(lexical_declaration) (variable_declaration) (class_declaration) (catch_clause) (for_in_statement)] @local.declaration
[(class_declaration) (abstract_class_declaration) (interface_declaration) (type_alias_declaration)
 (function_signature) (method_signature)] @local.generic
