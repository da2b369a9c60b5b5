// Prints, for the TypeScript files under ROOT, every use of a function or method that the TypeScript
// compiler API resolves: one JSON object a line with the site (file, line of the name), whether it is a
// call, and the lines of the definition's declarations (overloads included), files relative to ROOT
// ("" when the definition lies outside it, such as lib.d.ts).
//
//   node bench/ts_truth/ts_truth.js PATH/TO/node_modules/typescript ROOT
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);

function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(full, out);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(full);
    }
  }
  return out;
}

const files = walk(root, []);
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  noEmit: true,
  skipLibCheck: true,
  strict: false,
  lib: ["lib.es2020.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();
const rel = (p) => {
  const r = path.relative(root, p);
  return r.startsWith("..") ? "" : r.split(path.sep).join("/");
};
const CALLABLE = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.MethodSignature,
]);

for (const sf of program.getSourceFiles()) {
  const file = rel(sf.fileName);
  if (!file || sf.isDeclarationFile) continue;
  const calls = new Set();
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const e = node.expression;
      if (ts.isIdentifier(e)) calls.add(e);
      else if (ts.isPropertyAccessExpression(e)) calls.add(e.name);
    }
    if (ts.isIdentifier(node) && !(node.parent && node.parent.name === node && CALLABLE.has(node.parent.kind))) {
      let sym = checker.getSymbolAtLocation(node);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      const decls = ((sym && sym.declarations) || []).filter((d) => CALLABLE.has(d.kind) && d.name);
      if (decls.length) {
        const site = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        const emit = (group) => {
          const d0 = group[0].getSourceFile();
          // One line once, in order: two declarations on one line (a merged declaration) named the same function
          // twice, `[806, 806]` beside `[806]`, and the scorer counted it as two (held-out IV, session 22).
          const defLines = [
            ...new Set(
              group
                .filter((d) => d.getSourceFile() === d0)
                .map((d) => d0.getLineAndCharacterOfPosition(d.name.getStart(d0)).line + 1),
            ),
          ].sort((a, b) => a - b);
          process.stdout.write(
            JSON.stringify({ file, line: site, call: calls.has(node), name: node.text, def_file: rel(d0.fileName), def_lines: defLines }) + "\n"
          );
        };
        // Declarations in different containers are not one function's overload set but a union's synthetic
        // property (`a: Tracker | TrackerStub`, the Stub overriding the method): a call of it is a call of each
        // member's method, so each declaration is its own record (held-out VI, session 24). An overload set
        // (one class, interface, file or namespace body) stays one record.
        if (new Set(decls.map((d) => d.parent)).size > 1) for (const d of decls) emit([d]);
        else emit(decls);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
