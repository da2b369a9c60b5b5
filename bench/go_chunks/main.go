// Command go_chunks prints the function-level chunks of every .go file under a directory, as the vector
// baseline of bench/cq_search.py embeds them and as its gold locations are resolved: each function,
// method (qualified Receiver.Name) and type declaration, from its doc comment to its last line (at most
// 80 lines of text), from go/parser. One JSON array on stdout; paths relative to the directory.
//
//	go run ./bench/go_chunks /path/to/repo > chunks.json
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

const maxLines = 80

type chunk struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	EndLine  int    `json:"end_line"`
	Name     string `json:"name"`
	Qualname string `json:"qualname"`
	Text     string `json:"text"`
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

func main() {
	root := os.Args[1]
	out := []chunk{}
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() && (info.Name() == ".git" || info.Name() == ".meta") {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		lines := strings.Split(string(src), "\n")
		emit := func(doc *ast.CommentGroup, node ast.Node, name, qual string) {
			first := fset.Position(node.Pos()).Line
			last := fset.Position(node.End()).Line
			start := first
			if doc != nil {
				start = fset.Position(doc.Pos()).Line
			}
			stop := last
			if stop > start+maxLines-1 {
				stop = start + maxLines - 1
			}
			out = append(out, chunk{rel, first, last, name, qual, strings.Join(lines[start-1:stop], "\n")})
		}
		for _, d := range f.Decls {
			switch decl := d.(type) {
			case *ast.FuncDecl:
				qual := decl.Name.Name
				if decl.Recv != nil && len(decl.Recv.List) > 0 {
					qual = recvName(decl.Recv.List[0].Type) + "." + qual
				}
				emit(decl.Doc, decl, decl.Name.Name, qual)
			case *ast.GenDecl:
				if decl.Tok != token.TYPE {
					continue
				}
				for _, s := range decl.Specs {
					ts := s.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil && len(decl.Specs) == 1 {
						doc = decl.Doc
					}
					emit(doc, ts, ts.Name.Name, ts.Name.Name)
				}
			}
		}
		return nil
	})
	enc := json.NewEncoder(os.Stdout)
	_ = enc.Encode(out)
}
