; Definitions -------------------------------------------------------------
(function_definition
  name: (identifier) @name
  parameters: (parameters) @params
  return_type: (_)? @return) @def.function

(class_definition
  name: (identifier) @name
  superclasses: (argument_list)? @params) @def.class

(type_alias_statement left: (type (identifier) @name)) @def.type

; Assignments become variables at module level and fields in class bodies; the
; extractor drops the ones inside functions.
; `@value` (a local's right side) feeds receiver_types.py: `m = OrderStateMachine()`.
(assignment left: (identifier) @name type: (_)? @return right: (_)? @value) @def.variable
(assignment left: (pattern_list (identifier) @name)) @def.variable
(assignment left: (tuple_pattern (identifier) @name)) @def.variable
(assignment left: (list_pattern (identifier) @name)) @def.variable

; References --------------------------------------------------------------
(call function: (identifier) @name) @ref.call
(call function: (attribute object: (_) @qual attribute: (identifier) @name)) @ref.call
(decorator (identifier) @name) @ref.call
(decorator (attribute object: (_) @qual attribute: (identifier) @name)) @ref.call
(class_definition superclasses: (argument_list (identifier) @name) @ref.inherit)
(class_definition superclasses: (argument_list (attribute object: (_) @qual attribute: (identifier) @name) @ref.inherit))
;; a subscripted generic base: `class Float(Number[float])`, `class C(fields.Number[int])`
(class_definition superclasses: (argument_list (subscript value: (identifier) @name)) @ref.inherit)
(class_definition superclasses: (argument_list (subscript value: (attribute object: (_) @qual attribute: (identifier) @name))) @ref.inherit)
(type (identifier) @name) @ref.type
(type (attribute object: (_) @qual attribute: (identifier) @name)) @ref.type
(generic_type (identifier) @name) @ref.type

; Imports -----------------------------------------------------------------
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; Receiver types --------------------------------------------------------------
; `self.x[: T] = value`: read in `__init__` for the type of `self.x` (see receiver_types.py).
(assignment
  left: (attribute object: (identifier) @qual attribute: (identifier) @name)
  type: (_)? @return
  right: (_)? @value) @bind.attr
; `self.x += value` (any operator): rebinds `self.x` to the operator's result, which the file does not state.
(augmented_assignment
  left: (attribute object: (identifier) @qual attribute: (identifier) @name)) @bind.augmented

; `with X() as x`: the local `x` holds what the call returns (a constructor or an annotated function).
(as_pattern (call) @value alias: (as_pattern_target (identifier) @name)) @bind.local

; `except K as e`: the local `e` holds an instance of K (of a tuple of classes: no one class).
(except_clause value: (as_pattern [(identifier) (attribute)] @caught alias: (as_pattern_target (identifier) @name))) @bind.local

; `for x in xs`: the local `x` holds an element of `xs` (`xs: list[K]`, `d.values()` of `d: dict[str, K]`).
(for_statement left: (identifier) @name right: (_) @value) @bind.element
; `[x.m() for x in xs]`: a comprehension's variable is an element too (its own scope: py_scopes.py).
(for_in_clause left: (identifier) @name right: (_) @value) @bind.element
; `for k, v in [(K(..), "a"), (K(..), "b")]`: each name holds the one value its position gives in every row.
(for_statement left: (pattern_list) @pattern right: [(list) (tuple)] @value) @bind.rows

; `return value` / `yield value`: what a function gives its callers when it states no return type.
(return_statement (_) @value) @bind.return
(expression_statement (yield (_) @value) @bind.return)
; any `yield` (`x = yield v`, a bare `yield`, `yield from`): the function is a generator, its call no value it
; returns (receiver_types.py drops an inferred result, save a fixture's or a `@contextmanager`'s)
(yield) @bind.yield

; Values: a function, method or class used without being called (`cb=handler`, `f = Color.from_rgb`,
; `map(func, xs)`). Recorded only when resolved for certain (no name-only guesses for values).
(keyword_argument value: (identifier) @name) @ref.read
(keyword_argument value: (attribute object: (_) @qual attribute: (identifier) @name)) @ref.read
(argument_list (identifier) @name) @ref.read
(argument_list (attribute object: (_) @qual attribute: (identifier) @name)) @ref.read
(assignment right: (identifier) @name) @ref.read
(assignment right: (attribute object: (_) @qual attribute: (identifier) @name)) @ref.read

; Scopes and bindings (py_scopes.py: which bare-name uses mean a local variable) --------------------------
; Matched here, in the one pass over the tree, not by a query of their own (a second pass was ~1 CPU-s on
; the stdlib); the extractor hands their matches to `py_scopes.shadowed`.
(function_definition name: (identifier) @local.def) @local.fn
(class_definition name: (identifier) @local.def body: (block) @local.cbody)
(lambda) @local.lam
(list_comprehension) @local.comp
(set_comprehension) @local.comp
(dictionary_comprehension) @local.comp
(generator_expression) @local.comp
(for_in_clause left: (_) @local.target)
(assignment left: (_) @local.target)
(augmented_assignment left: (_) @local.target)
(for_statement left: (_) @local.target)
(as_pattern_target (_) @local.target)
(named_expression name: (identifier) @local.walrus)
(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.nonlocal)
(import_statement name: (dotted_name . (identifier) @local.def))
(import_statement name: (aliased_import alias: (identifier) @local.def))
(import_from_statement name: (dotted_name . (identifier) @local.def))
(import_from_statement name: (aliased_import alias: (identifier) @local.def))
