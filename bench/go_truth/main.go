// Command go_truth prints, for the packages named on its command line, every use of a function or
// method that go/types resolves (GOPATH mode), one JSON object a line: the site (file, line of the
// name), whether it is a call, and the definition (file, line), files relative to the GOPATH src
// directory given first ("" when the definition lies outside it, such as the standard library).
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run ./bench/go_truth /usr/share/gocode/src github.com/spf13/cobra
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
)

type use struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Call    bool   `json:"call"`
	Name    string `json:"name"`
	DefFile string `json:"def_file"`
	DefLine int    `json:"def_line"`
}

func main() {
	root := os.Args[1]
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	enc := json.NewEncoder(os.Stdout)
	rel := func(p string) string {
		r, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(r, "..") {
			return ""
		}
		return filepath.ToSlash(r)
	}
	for _, path := range os.Args[2:] {
		bp, err := build.Import(path, "", 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, path, err)
			continue
		}
		var files []*ast.File
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, 0)
			if err == nil {
				files = append(files, f)
			}
		}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf.Check(path, fset, files, info) // errors are tolerated: what resolves is still recorded
		calls := map[*ast.Ident]bool{}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					switch fn := call.Fun.(type) {
					case *ast.Ident:
						calls[fn] = true
					case *ast.SelectorExpr:
						calls[fn.Sel] = true
					}
				}
				return true
			})
		}
		for id, obj := range info.Uses {
			fn, ok := obj.(*types.Func)
			if !ok || !fn.Pos().IsValid() {
				continue
			}
			site := fset.Position(id.Pos())
			def := fset.Position(fn.Pos())
			file := rel(site.Filename)
			if file == "" {
				continue
			}
			_ = enc.Encode(use{file, site.Line, calls[id], id.Name, rel(def.Filename), def.Line})
		}
	}
}
