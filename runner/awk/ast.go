package awk

import "github.com/wsfs/wsfs/runner/internal/gnuregex"

// The syntax tree. Names are resolved to slots at parse time: a variable is
// a global slot, a local slot (function parameter) or a special variable.

type expr interface{}

type stmt interface{}

// at is where a statement starts in the program text, for run-time error
// messages.
type at struct{ pos int }

func (a *at) setPos(p int) { a.pos = p }

type scope uint8

const (
	scopeGlobal scope = iota
	scopeLocal
	scopeSpecial
)

// varKind is what a name turned out to be after resolution.
type varKind uint8

const (
	kindUnknown varKind = iota
	kindScalar
	kindArray
)

// variable is one named slot (a global, or a parameter of one function).
type variable struct {
	name  string
	scope scope
	index int
	kind  varKind
	fn    string // owning function, for locals
	pos   int
}

type (
	numExpr   struct{ n float64 }
	strExpr   struct{ s string }
	regexExpr struct {
		src string
		re  *gnuregex.Regexp
	}
	varExpr   struct{ v *variable }
	indexExpr struct {
		arr  *variable
		keys []expr
	}
	fieldExpr  struct{ index expr }
	assignExpr struct {
		target expr // varExpr, indexExpr or fieldExpr
		op     tok  // tAssign or an op-assign token
		right  expr
	}
	condExpr   struct{ cond, yes, no expr }
	binaryExpr struct {
		op   tok // arithmetic, comparison; tEOF for concatenation
		l, r expr
	}
	andExpr   struct{ l, r expr }
	orExpr    struct{ l, r expr }
	matchExpr struct {
		l, re  expr
		negate bool
	}
	inExpr struct {
		keys []expr
		arr  *variable
	}
	unaryExpr struct {
		op tok // tSub, tAdd, tNot
		e  expr
	}
	incDecExpr struct {
		target expr
		pre    bool
		delta  float64
	}
	callExpr struct {
		name string
		fn   *function
		args []expr
		pos  int
	}
	builtinExpr struct {
		name string
		args []expr
		pos  int
	}
	getlineExpr struct {
		kind   getlineKind
		src    expr // file name or command
		target expr // nil for $0
	}
	groupExpr struct{ e expr } // parenthesized: keeps "(a > b)" from being a redirection
)

type getlineKind uint8

const (
	getlineMain getlineKind = iota
	getlineFile
	getlineCmd
)

type (
	printStmt struct {
		at

		printf bool
		args   []expr
		redir  tok // 0, tGreater, tAppend, tPipe
		dest   expr
	}
	exprStmt struct {
		at
		e expr
	}
	ifStmt struct {
		at

		cond      expr
		then, els []stmt
	}
	whileStmt struct {
		at

		cond expr
		body []stmt
	}
	doStmt struct {
		at

		body []stmt
		cond expr
	}
	forStmt struct {
		at

		init stmt
		cond expr
		post stmt
		body []stmt
	}
	forInStmt struct {
		at

		v    expr // varExpr (or indexExpr / fieldExpr in gawk)
		arr  *variable
		body []stmt
	}
	blockStmt    struct{ body []stmt }
	nextStmt     struct{}
	nextfileStmt struct{}
	exitStmt     struct {
		at
		code expr
	}
	returnStmt struct {
		at
		e expr
	}
	breakStmt    struct{}
	continueStmt struct{}
	deleteStmt   struct {
		at

		arr  *variable
		keys []expr // nil: the whole array
	}
)

// rule is one pattern-action item.
type rule struct {
	pattern  expr // nil: every record
	pattern2 expr // range end, or nil
	body     []stmt
	hasBody  bool
	inRange  bool
}

type function struct {
	name    string
	params  []*variable
	body    []stmt
	pos     int
	defined bool
}

// program is a parsed and resolved awk program.
type program struct {
	begins    [][]stmt
	rules     []*rule
	ends      [][]stmt
	funcs     map[string]*function
	globals   []*variable
	globalMap map[string]*variable
	warnings  []syntaxError
}
