package bc

// The program as parsed. Every node that can fail at run time carries
// addr: where GNU bc's compiled code would be when that instruction
// fails, so that "Runtime error (func=f, adr=N)" names the same N. The
// parser computes it from the size GNU's code generator gives each
// construct (see parser.go's emit).

type expr interface{ isExpr() }

type (
	// numLit is a constant, converted with ibase when it runs.
	numLit struct{ text string }
	// varRef is a scalar: a name, or scale, ibase, obase, last.
	varRef struct{ name string }
	// elemRef is an array element.
	elemRef struct {
		name  string
		index expr
		addr  int // after the load
	}
	assign struct {
		target expr   // *varRef or *elemRef
		op     string // "" for =, else + - * / % ^
		value  expr
		opAddr int // after the operator of a compound assignment
		addr   int // after the store
		// loadAddr is after the load of an element's old value (compound).
		loadAddr int
	}
	incDec struct {
		target      expr
		inc, prefix bool
		addr        int // after the increment
		loadAddr    int // after an element's load
	}
	unary struct {
		op string // "-" or "!"
		x  expr
	}
	binary struct {
		op   string
		a, b expr
		addr int
	}
	logical struct {
		and  bool
		a, b expr
	}
	callArg struct {
		x     expr   // a value
		array string // or an array passed by name
	}
	call struct {
		name    string
		args    []callArg
		defAddr int // after C and the function's number
		// typeAddrs[i] is after the i-th parameter type; endAddr after ':'.
		typeAddrs []int
		endAddr   int
	}
	builtin struct {
		fn   string // length, scale, sqrt, read
		x    expr
		addr int
	}
)

func (*numLit) isExpr()  {}
func (*varRef) isExpr()  {}
func (*elemRef) isExpr() {}
func (*assign) isExpr()  {}
func (*incDec) isExpr()  {}
func (*unary) isExpr()   {}
func (*binary) isExpr()  {}
func (*logical) isExpr() {}
func (*call) isExpr()    {}
func (*builtin) isExpr() {}

type stmt interface{ isStmt() }

type (
	exprStmt struct {
		x     expr
		print bool // not an assignment: its value is printed and kept in last
	}
	strStmt   struct{ text string }
	printStmt struct {
		items []printItem
	}
	printItem struct {
		str   string
		x     expr // nil for a string
		isStr bool
	}
	ifStmt struct {
		cond      expr
		then, els stmt
	}
	whileStmt struct {
		cond expr
		body stmt
	}
	forStmt struct {
		init, cond, incr expr // any may be nil
		body             stmt
	}
	block        struct{ list []stmt }
	breakStmt    struct{}
	continueStmt struct{}
	returnStmt   struct{ x expr }
	haltStmt     struct{}
)

func (*exprStmt) isStmt()     {}
func (*strStmt) isStmt()      {}
func (*printStmt) isStmt()    {}
func (*ifStmt) isStmt()       {}
func (*whileStmt) isStmt()    {}
func (*forStmt) isStmt()      {}
func (*block) isStmt()        {}
func (*breakStmt) isStmt()    {}
func (*continueStmt) isStmt() {}
func (*returnStmt) isStmt()   {}
func (*haltStmt) isStmt()     {}

// param is a function's parameter or auto variable.
type param struct {
	name  string
	array bool
	ref   bool // *a[]: the caller's array itself
}

// function is a defined function.
type function struct {
	name   string
	params []param
	autos  []param
	body   []stmt
	void   bool
	// native is a math library function written in Go (-l).
	native func(in *interp, args []num) (num, error)
}
