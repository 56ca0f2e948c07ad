package bc

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command"
	"github.com/wsfs/wsfs/runner/command/commandtest"
)

// gnuPrograms are bc programs whose output, messages and status must be
// GNU bc 1.07.1's.
var gnuPrograms = []string{
	// Arithmetic and scale.
	"1/3\nscale=5\n1/3\n-1/3\n2^100\n.5*3\n",
	"x=5\nx\nx++\nx\n++x\nx--\n--x\n",
	"1/0\n2+3\nfoo(1)\n",
	"\"hello\\n\"\nprint \"a\", 1, \"\\n\"\n",
	"length(123.450)\nscale(1.230)\nsqrt(2)\nscale=5\n3%2\n5.5%2\n-7%3\n",
	"ibase=16\nFF\nA\nibase=A\nobase=16\n255\nobase=2\n10\nobase=100\n12345\nobase=10\n0.1+0.2\n-0\n0\n",
	"2^300\nscale=100\n1/7\nobase=16\n2^300\n",
	"1+\n2\n3 @ 4\n5\n)\n6\nif (1) 2 else 3\nx = 3; y = 4; x*y\n{ 7; 8 }\nfor (i=0;i<3;i++) i\nwhile (i > 0) i--\ndefine f(x) { return x*2 }\nf(4)\ndefine g(a[]) { return a[0] }\nz[0]=9\ng(z[])\nquit\n99\n",
	"x=1; 1/0; x=2\nx\n",
	"1/0; 5\n{1/0; 5}\n",
	"define f(){ return 1/0 }; f()\n",
	"define f(){ auto x; x=1; return x/0 }\nf()\n",
	"define f(x){ return x/0 }\n3+f(1)\n",
	"length()\n",
	"1;halt;2\n",
	"if(1){1;halt};3\n",
	"limits\n",
	"1 == 1\nx = (1 < 2)\n!0\n1 && 0 || 1\n-0.0\n00012.3400\n.000\n",
	"1e5\n",
	"x^=2\na=2;a^=3;a\na=7;a%=3;a\n3-\n",
	"2 ^ -2\nscale=3; 2^-2\n0^0\n0^-1\n(-2)^3\n-2^2\n2^3^2\n",
	"1; 2; @\n1; 2 3; 4\n",
	"length(0)\nlength(.05)\nlength(1.50)\nlength(-12.3)\nscale(.05)\nscale(0)\n",
	"ibase=2; 0.1\nibase=2; 1.11\nibase=16; 0.8\nibase=16; A.8\n",
	"AB\nibase=10; 1A\nZ\nibase=16; G\nibase=36\nibase=16; FFFF.FF\n",
	"obase=2; 0.1\nobase=16; 0.1\nobase=16; scale=10; 1/3\nobase=3; -5.5\nobase=17; 100\n",
	"x=3.14159; scale=2; x*1\nscale=2; 1.555*1\nscale=2; 3.14159/1\nscale=0; 3.9/1\n-3.9/1\nscale=0; 7/-2\nscale=1; 7%-2\n(-7)%2\n",
	"last\n5; last+1\n5; .+1\na=1; a\nabc_1=2; abc_1\nA=1\n",
	"define x(){}; x()\ndefine y(){return}; y()\ndefine z(){return 5}; z()\n",
	"define void x(){print 1}; x()\n",
	"define f(*a[]){a[0]=5}; f(b[]); b[0]\n",
	"define f(a[]){a[0]=5}; f(b[]); b[0]\n",
	"define f(x){x}; f(1,2)\n",
	"define f(x){x}; f()\n",
	"define f(a[]){return 1}; f(1)\n",
	"define f(x){return 1}; f(q[])\n",
	"ibase=36; ibase\nibase=17; ibase\nobase=1000; obase\nobase=999999999; 5\n",
	"scale=2147483648\n",
	"x=2; x^=0.5; x\n",
	"x=1<2; x\n(x=5)\n!1 < 2\n1 < 2 < 3\nx = y = 3; x; y\n-x++\nx=2; -x^2\n2*-3\n2^-1^2\n",
	"a[1]=5; a[1]++; a[1]\nibase=37\nibase=16; ibase=A; ibase\nobase=0\n",
	"if (1) print \"y\" else print \"n\"\n",
	"if (0) 1\nelse 2\n",
	"if (1) 1; else 2\n",
	"while (0) ; 5\n",
	"for(i=0;i<2;i++){ if(i==1) break; i }\nfor(i=0;i<3;i++){ if(i==1) continue; i }\n",
	"break\n",
	"continue\n",
	"return 5\n",
	"i=3; while(i--) i\nx = 3 + 4 * 2 ^ 2\n7 / 2 * 2\n10 % 3 ^ 2\n",
	"--5\n- -5\n++ 5\nx++ ++\n",
	"print 1,2,3\nprint \"\"\n",
	"print\n",
	"x[\n",
	"5 # comment\n5 /* multi\nline */ + 1\n",
	"1 \\\n+ 2\na_b\n_a\naBc\nx1=3; x1\nsqrt(4, 2)\nlength(\"a\")\n",
	"define f(){ auto x; x=5; return g() }\ndefine g(){ return x }\nf(); x\n",
	"define f(x){ x=7; return g() }\ndefine g(){ return x }\nx=1; f(2); x\n",
	"define f(a[]){ a[0]=9; return g() }\ndefine g(){ return a[0] }\na[0]=1; f(a[]); a[0]\n",
	"define f(){return 1} define g(){return 2}\nf()+g()\n",
	"define f(n){ if(n<2) return n; return f(n-1)+f(n-2) }\nf(15)\n",
	"x=5\ndefine f(x){ return x }\nf(3); x\n",
	"define f(){\n 1\n}\nf()\n",
	"define f()\n{\nreturn 3\n}\nf()\n",
	"if (1)\n2\nwhile (0)\n1\n{\n1\n2}\n",
	"print 1,\n2\n1 +\n2\n",
	"define void f(){}; f()\n",
	"define void f(){ return }; f()\n",
	"obase=100; 0.5\nobase=100; 12.345\nobase=16; -0.5\nobase=100; 0\nobase=20; scale=4; 1/3\n",
	"a[16777215]=1\na[16777214]=1; a[16777214]\na[16777216]=1\na[-1]\n",
	"scale=3; x=1/3; x; scale(x); length(x)\n1.50+0\n1.5-1.50\n",
	"1/0; limits\n",
	"halt; 5\n",
	"print 1; halt\n",
	"define f(){ halt }\nf(); 5\n",
	"x=5 ; x\n  ; ; 3\n;\n{ ; }\n{}\nif (1) {}\n",
	"1; 2 /* c */; 3\nlength(1.2345)\n",
	"print \"a\\qb\\\\c\\n\"\n",
	"print \"x\\ty\\0z\\a\\b\\f\\r|\\e|\"\n",
	"1\nquit\n",
	"if (0) quit\n5\n",
	"10000/0\nx=1/0\n1+1/0\n(1/0)\na[1]/0\nsqrt(-1)\n1;1/0\nprint 1/0\n2^0.5\n",
	"2^4294967296\n2^99999999999\n0^1000000000000\n1^-1000000000000\n2^(2^63)\n",
	"scale=-1\nibase=1\nobase=1\n",
	"z=1\nz+=1\nz-=1\nz*=3\nz^=2\nz/=2\nz%=4\nz\nq[0]+=1\nq[0]++\n++q[0]\nq[0]\n",
	"define f(x){ return x }\ndefine v(x,y){ return x }\nf(1)+1/0\nv(1,2)/0\nv(f(1),2)/0\n",
	"define g(a[]){ return 1 }\nq[0]=1\ng(q[])/0\n",
	"z=1\nif (z) 1; 1/0\nif (z) 1 else 2; 1/0\nwhile (z<0) 1; 1/0\nfor (z=0;z<0;z++) 1; 1/0\nfor (;z<0;) 1; 1/0\n",
	"z=1\nz&&1; 1/0\nz||1; 1/0\nlength(z); 1/0\n\"ab\"; 1/0\nprint z, \"a\"; 1/0\n",
	"obase=16\n-255.5\n1/7\nobase=8\n1/7\n",
	"scale=20\ne=2.71828\ne*e\n",
	"0.0001*0.0001\nscale=8\n0.0001*0.0001\n",
	"99999999999999999999999999999*99999999999999999999999999999\n",
	"scale=50\nsqrt(2)\nsqrt(10000)\nsqrt(0.0004)\nscale=0\nsqrt(99)\n",
	"scale=4\n-5%3\n5%-3\n-5%-3\n5.5%2.2\n",
}

func TestBcGNU(t *testing.T) {
	d := commandtest.Differential{Commands: map[string]command.Func{"bc": Bc}}
	var cases []commandtest.Case
	for _, prog := range gnuPrograms {
		cases = append(cases, commandtest.Case{Line: "bc", Stdin: prog})
	}
	cases = append(cases, mathCases()...)
	d.Run(t, cases)
}

func mathCases() []commandtest.Case {
	var cases []commandtest.Case
	var b strings.Builder
	for _, x := range []string{"0", "1", "-1", "0.5", "2", "10", "-3.7", "100", "0.001", "123.456"} {
		for _, f := range []string{"s", "c", "a", "e"} {
			b.WriteString(f + "(" + x + ")\n")
		}
		b.WriteString("l(" + x + ")\n")
	}
	cases = append(cases, commandtest.Case{Line: "bc -l", Stdin: b.String()})
	cases = append(cases, commandtest.Case{Line: "bc -l", Stdin: "scale=50\ne(1)\nl(2)\na(1)*4\ns(1)\nc(1)\nscale=5\ne(1)\nl(10)\nscale=0\ne(1)\ns(1)\n"})
	cases = append(cases, commandtest.Case{Line: "bc -l", Stdin: "j(0,0)\nj(1,1)\nj(2,-1)\nj(1.5,1)\nj(0,10)\nj(3,2.5)\nj(-3,2.5)\ne(-1)\ne(-100)\ne(50)\n"})
	return cases
}

// TestBcGNUMore covers the math library over many arguments, output in
// other bases, long lines, -s and -w, files and the environment.
func TestBcGNUMore(t *testing.T) {
	d := commandtest.Differential{Commands: map[string]command.Func{"bc": Bc},
		Files: map[string]string{
			"f1.bc": "1+1\n", "f2.bc": "2+2\nquit\n3\n", "f3.bc": "1/0\n@\n", "r.bc": "x=read(); x*2\n",
			"lib.bc": "define sq(x) { return x*x }\n",
		}}
	var cases []commandtest.Case
	var b strings.Builder
	args := []string{"0.1", "0.25", "-0.25", "0.7", "1.5", "-2.5", "3", "3.14159", "5", "7.25", "-9", "12.5", "20", "33.3", "-45.6", "0.999", "1.001", "64", "0.0625"}
	for _, x := range args {
		for _, f := range []string{"s", "c", "a", "e", "l"} {
			b.WriteString(f + "(" + x + ")\n")
		}
	}
	cases = append(cases, commandtest.Case{Line: "bc -l", Stdin: b.String()})
	b.Reset()
	// GNU's library runs its series in bc at a few guard digits and is
	// off by one in the last digit for some arguments below scale 20
	// (scale=12; c(0) is .999999999999); ours is the exact value
	// truncated, so the comparison is at scale 0 and from 20 up, and
	// TestMathExact checks lower scales against known values.
	for _, sc := range []string{"0", "20", "30", "45"} {
		b.WriteString("scale=" + sc + "\n")
		for _, x := range []string{"0.5", "2", "-1.25", "10"} {
			b.WriteString("s(" + x + ")\nc(" + x + ")\na(" + x + ")\ne(" + x + ")\nl(" + x + ")\nj(2," + x + ")\nsqrt(" + strings.TrimPrefix(x, "-") + ")\n")
		}
	}
	cases = append(cases, commandtest.Case{Line: "bc -l", Stdin: b.String()})
	cases = append(cases,
		commandtest.Case{Line: "bc", Stdin: "obase=16\n2^200\n-2^200\nobase=2\n2^80+1\nobase=7\n123456789.987654321\nobase=1000\n2^100\nobase=3\nscale=30\n1/3\n"},
		commandtest.Case{Line: "bc", Stdin: "scale=200\n1/7\n\"" + strings.Repeat("x", 150) + "\"\nprint 1/3, \"" + strings.Repeat("y", 80) + "\\n\"\n"},
		commandtest.Case{Line: "bc", Stdin: "scale=100\n4*a(1)\n", Env: []string{"BC_LINE_LENGTH=0"}},
		commandtest.Case{Line: "bc", Stdin: "scale=100\n1/3\n", Env: []string{"BC_LINE_LENGTH=20"}},
		commandtest.Case{Line: "bc", Stdin: "scale=100\n1/3\n", Env: []string{"BC_LINE_LENGTH=2"}},
		commandtest.Case{Line: "bc f1.bc", Stdin: "5\n"},
		commandtest.Case{Line: "bc f2.bc", Stdin: "5\n"},
		commandtest.Case{Line: "bc f3.bc", Stdin: "5\n"},
		commandtest.Case{Line: "bc f1.bc f3.bc -", Stdin: "5\n"},
		commandtest.Case{Line: "bc nope", Stdin: "5\n"},
		commandtest.Case{Line: "bc lib.bc", Stdin: "sq(12)\n"},
		commandtest.Case{Line: "bc r.bc", Stdin: "21\n"},
		commandtest.Case{Line: "bc -q", Stdin: "1+1\n"},
		commandtest.Case{Line: "bc -x", Stdin: ""},
		commandtest.Case{Line: "bc --frob", Stdin: ""},
		commandtest.Case{Line: "bc -h", Stdin: ""},
		commandtest.Case{Line: "bc -l -q", Stdin: "scale\n"},
	)
	for _, prog := range []string{
		"print 1\n", "x=1; if (x) 2\n", "abc=1\n", "a[1]=2\n", "x=1<2\n", "if (1) 2 else 3\n", "{ 1 }\n",
		"while (0) { break }\n", "1 && 2\n", "!1\n", "x++\n", "x+=1\n", "define f(x) { return x }\n",
		"define f(x) { return (x) }\n", "define f(a[]) { auto b[]; return (1) }\n", "last\n", "\"str\"\n",
		"halt\n", "x=2^0.5\n", "for(;;) break\n", "continue\n", "s(1)\n", "#x\n",
	} {
		cases = append(cases, commandtest.Case{Line: "bc -s", Stdin: prog}, commandtest.Case{Line: "bc -w", Stdin: prog})
	}
	d.Run(t, cases)
}

// TestMathExact: the library's results are the exact values truncated to
// scale, at any scale.
func TestMathExact(t *testing.T) {
	sb := commandtest.New(t)
	for _, c := range []struct{ prog, want string }{
		{"scale=1; c(0.5)", ".8"}, // cos 0.5 = 0.8775…
		{"scale=1; c(2)", "-.4"},  // cos 2 = -0.4161…
		{"scale=12; c(0)", "1.000000000000"},
		{"scale=5; s(-6.5)", "-.21511"}, // sin -6.5 = -0.2151199…
		{"scale=3; e(1)", "2.718"},
		{"scale=4; l(10)", "2.3025"},
		{"scale=6; a(1)*4", "3.141592"},
		{"scale=2; j(0,1)", ".76"}, // J0(1) = 0.7651…
		{"scale=0; e(3)", "20"},
		{"e(-1000)", "0"},
		{"scale=5; l(1)", "0"},
	} {
		r := sb.Run(t.Context(), Bc, c.prog+"\n", "bc", "-l")
		if r.Stdout != c.want+"\n" || r.Stderr != "" {
			t.Errorf("%s: got %q %q, want %q", c.prog, r.Stdout, r.Stderr, c.want)
		}
	}
}

// TestBcGNURandom compares random arithmetic (a fixed seed) with GNU's:
// every operator with numbers of many scales and signs, under several
// scales and output bases.
func TestBcGNURandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	numText := func() string {
		ip := strconv.Itoa(r.IntN(1000))
		if r.IntN(4) == 0 {
			ip = strconv.Itoa(r.IntN(10))
		}
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteString("-")
		}
		b.WriteString(ip)
		if s := r.IntN(6); s > 0 {
			b.WriteString(".")
			for range s {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		return b.String()
	}
	var expr func(depth int) string
	expr = func(depth int) string {
		if depth == 0 || r.IntN(3) == 0 {
			return "(" + numText() + ")"
		}
		ops := []string{"+", "-", "*", "/", "%"}
		op := ops[r.IntN(len(ops))]
		if r.IntN(8) == 0 {
			return "(" + expr(depth-1) + ")^" + strconv.Itoa(r.IntN(7)-2)
		}
		return "(" + expr(depth-1) + op + expr(depth-1) + ")"
	}
	var cases []commandtest.Case
	for range 6 {
		var b strings.Builder
		for range 60 {
			if r.IntN(5) == 0 {
				fmt.Fprintf(&b, "scale=%d\n", r.IntN(12))
			}
			if r.IntN(12) == 0 {
				fmt.Fprintf(&b, "obase=%d\n", []int{2, 8, 10, 16, 10, 20, 100}[r.IntN(7)])
			}
			b.WriteString(expr(3) + "\n")
		}
		cases = append(cases, commandtest.Case{Line: "bc", Stdin: b.String()})
	}
	d := commandtest.Differential{Commands: map[string]command.Func{"bc": Bc}}
	d.Run(t, cases)
}
