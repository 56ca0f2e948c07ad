package xan

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

const people = "name,age,city\nJohn,12,Paris\nLucy,15,\"Lyon, FR\"\nAnn,,Nice\n"

var files = map[string]string{
	"p.csv":      people,
	"dup.csv":    "a,b,a\n1,2,3\n",
	"tricky.csv": "\xef\xbb\xbfid,text\r\n1,\"say \"\"hi\"\"\"\r\n2,\"two\nlines\"\r\n3,a,b\r\n",
	"crlf.csv":   "id,v\r\n1,x\r\n2,y\r\n",
	"ragged.csv": "a,b\n1,2\n3\n",
	"empty.csv":  "",
	"t.tsv":      "a\tb\n1\t2\n",
	"nums.csv":   "n,s\n10,b\n9,a\n-1.5,c\nx,d\n",
	"fr.csv":     "h1,h2\na,z\na,y\na,y\nb,z\n,z\n",
	"l.csv":      "id,name\n1,ann\n2,bob\n3,cid\n",
	"r.csv":      "id,score\n2,20\n3,30\n4,40\n3,31\n",
	"data.json":  `[{"name":"John","age":34,"meta":{"x":1,"tags":["a","b"]}},{"name":"Lucy","ok":true,"age":null}]`,
	"data.jsonl": "{\"a\":1}\n{\"b\":\"x\"}\n",
	"obj.json":   `{"k1":"v1","k2":[1,2]}`,
	"lines.txt":  "one\ntwo\r\nthree\n",
	"expr.mb":    "age > 12\n",
	"sub/x.csv":  "a\n1\n",
}

func TestXan(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		stdin string
		args  string // split on spaces; use · for literal spaces inside an argument
		out   string
		code  int
		err   string // substring of stderr
	}{
		// headers
		{name: "headers", args: "headers p.csv", out: "0   name\n1   age\n2   city\n"},
		{name: "headers just names", args: "headers -j p.csv", out: "name\nage\ncity\n"},
		{name: "headers bom stripped", args: "headers -j tricky.csv", out: "id\ntext\n"},
		{name: "headers stdin", stdin: "x,y\n", args: "h", out: "0   x\n1   y\n"},
		{name: "headers many", args: "headers -j p.csv l.csv", out: "p.csv\nname\nage\ncity\n\nl.csv\nid\nname\n"},
		// count
		{name: "count", args: "count p.csv", out: "3\n"},
		{name: "count no headers", args: "count -n p.csv", out: "4\n"},
		{name: "count embedded newline", args: "count crlf.csv", out: "2\n"},
		{name: "count ragged ok", args: "count ragged.csv", out: "2\n"},
		{name: "count check alignment", args: "count -c ragged.csv", code: 1, err: "ragged.csv: line 3: found a record with 1 fields, but the first record has 2"},
		{name: "count empty", args: "count empty.csv", out: "0\n"},
		{name: "count stdin dash", stdin: "a\n1\n2\n", args: "count -", out: "2\n"},
		// select
		{name: "select names", args: "select city,name p.csv", out: "city,name\nParis,John\n\"Lyon, FR\",Lucy\nNice,Ann\n"},
		{name: "select indices", args: "select 2,0 p.csv", out: "city,name\nParis,John\n\"Lyon, FR\",Lucy\nNice,Ann\n"},
		{name: "select negative", args: "select -- -1 p.csv", out: "city\nParis\n\"Lyon, FR\"\nNice\n"},
		{name: "select negative bare", args: "select -1 p.csv", out: "city\nParis\n\"Lyon, FR\"\nNice\n"},
		{name: "select range", args: "select name:age p.csv", out: "name,age\nJohn,12\nLucy,15\nAnn,\n"},
		{name: "select open range", args: "select 1: p.csv", out: "age,city\n12,Paris\n15,\"Lyon, FR\"\n,Nice\n"},
		{name: "select reversed range", args: "select 2:1 p.csv", out: "city,age\nParis,12\n\"Lyon, FR\",15\nNice,\n"},
		{name: "select negation", args: "select !age p.csv", out: "name,city\nJohn,Paris\nLucy,\"Lyon, FR\"\nAnn,Nice\n"},
		{name: "select negated range", args: "select !0:1 p.csv", out: "city\nParis\n\"Lyon, FR\"\nNice\n"},
		{name: "select duplicate name nth", args: "select a[1],b dup.csv", out: "a,b\n3,2\n"},
		{name: "select duplicate last", args: "select a[-1] dup.csv", out: "a\n3\n"},
		{name: "select glob", args: "select a* dup.csv", out: "a,a\n1,3\n"},
		{name: "select star", args: "select *,0 dup.csv", out: "a,b,a,a\n1,2,3,1\n"},
		{name: "select quoted name", stdin: "a:b,c\n1,2\n", args: `select "a:b"`, out: "a:b\n1\n"},
		{name: "select no headers", args: "select -n 1 l.csv", out: "name\nann\nbob\ncid\n"},
		{name: "select no headers by name", args: "select -n name l.csv", code: 2, err: "use its index"},
		{name: "select unknown", args: "select name,foo p.csv", code: 1, err: `xan select: column "foo" not found (columns: name, age, city)`},
		{name: "select out of range", args: "select 7 p.csv", code: 1, err: "column index 7 is out of range (the input has 3 columns)"},
		{name: "select missing arg", args: "select", code: 2, err: "usage: xan select"},
		{name: "select ragged", args: "select a ragged.csv", out: "a\n1\n", code: 1, err: "line 3: found a record with 1 fields"},
		{name: "select quoting", args: "select text tricky.csv", out: "text\n\"say \"\"hi\"\"\"\n\"two\nlines\"\n", code: 1, err: "tricky.csv: line 5: found a record with 3 fields"},
		{name: "select tsv by extension", args: "select b t.tsv", out: "b\n2\n"},
		{name: "select tabs flag", stdin: "a\tb\n1\t2\n", args: "select -t b", out: "b\n2\n"},
		{name: "select delimiter", stdin: "a;b\n1;2\n", args: "select -d ; b,a", out: "b,a\n2,1\n"},
		{name: "select delimiter tab escape", stdin: "a\tb\n1\t2\n", args: `select -d \t a`, out: "a\n1\n"},
		{name: "select bad delimiter", args: "select -d ab a p.csv", code: 2, err: "single character"},
		{name: "select empty input", args: "select a empty.csv", out: ""},
		{name: "select missing file", args: "select a nope.csv", code: 1, err: "xan select: nope.csv: No such file or directory"},
		{name: "select directory", args: "select a sub", code: 1, err: "sub: Is a directory"},
		{name: "select confined", args: "select a ../../etc/passwd", code: 1, err: "No such file or directory"},
		{name: "select absolute host path", args: "select a /etc/passwd", code: 1, err: "/etc/passwd: No such file or directory"},
		{name: "output outside the workspace", args: "select -o /etc/xan-test.csv name p.csv", code: 1, err: "/etc/xan-test.csv:"},
		{name: "select evaluate refused", args: "select -e a p.csv", code: 2, err: "not supported"},
		{name: "select lone empty field quoted", stdin: "a,b\n,1\n", args: "select a", out: "a\n\"\"\n"},
		// search
		{name: "search substring", args: "search -s city Lyon p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\n"},
		{name: "search any column", args: "search 1 p.csv", out: "name,age,city\nJohn,12,Paris\nLucy,15,\"Lyon, FR\"\n"},
		{name: "search ignore case", args: "search -i -s name lucy p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\n"},
		{name: "search exact", args: "search -e -s age 1 p.csv", out: "name,age,city\n"},
		{name: "search regex", args: "search -r -s name ^[JA] p.csv", out: "name,age,city\nJohn,12,Paris\nAnn,,Nice\n"},
		{name: "search invert", args: "search -v -s name o p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\nAnn,,Nice\n"},
		{name: "search empty", args: "search -E -s age p.csv", out: "name,age,city\nAnn,,Nice\n"},
		{name: "search non-empty", args: "search --non-empty -s age p.csv", out: "name,age,city\nJohn,12,Paris\nLucy,15,\"Lyon, FR\"\n"},
		{name: "search more patterns", args: "search -e -s name John -P Ann p.csv", out: "name,age,city\nJohn,12,Paris\nAnn,,Nice\n"},
		{name: "search limit", args: "search -l 1 n p.csv", out: "name,age,city\nJohn,12,Paris\n"},
		{name: "search all", args: "search -A -i -s name,city n p.csv", out: "name,age,city\nAnn,,Nice\n"},
		{name: "search flag", args: "search -f hit -s name Lucy p.csv", out: "name,age,city,hit\nJohn,12,Paris,0\nLucy,15,\"Lyon, FR\",1\nAnn,,Nice,0\n"},
		{name: "search bad regex", args: "search -r ( p.csv", code: 2, err: "invalid regular expression"},
		{name: "search no pattern", args: "search", code: 2, err: "missing the pattern"},
		{name: "search embedded newline", args: "search -s text lines crlf.csv tricky.csv", code: 2, err: "too many arguments"},
		// filter
		{name: "filter numeric", args: "filter age·&&·age·>·12 p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\n"},
		{name: "filter empty cell error", args: "filter age>12 p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\n", code: 1, err: "row 2: >: cannot use an empty cell as a number"},
		{name: "filter string eq", args: `filter lower(name)·eq·"lucy" p.csv`, out: "name,age,city\nLucy,15,\"Lyon, FR\"\n"},
		{name: "filter method", args: `filter name.startswith("A") p.csv`, out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter in list", args: `filter city·in·["Paris",·"Nice"] p.csv`, out: "name,age,city\nJohn,12,Paris\nAnn,,Nice\n"},
		{name: "filter not in", args: `filter city·not·in·["Paris",·"Nice"] p.csv`, out: "name,age,city\nLucy,15,\"Lyon, FR\"\n"},
		{name: "filter substring in", args: `filter "FR"·in·city p.csv`, out: "name,age,city\nLucy,15,\"Lyon, FR\"\n"},
		{name: "filter regex", args: `filter contains(name,·/^j/i) p.csv`, out: "name,age,city\nJohn,12,Paris\n"},
		{name: "filter not", args: "filter !age p.csv", out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter invert", args: "filter -v age p.csv", out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter col", args: `filter col("city")·eq·"Nice" p.csv`, out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter col index", args: `filter col(-1)·eq·"Nice" p.csv`, out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter arithmetic", args: "filter age·&&·age·*·2·+·1·==·25 p.csv", out: "name,age,city\nJohn,12,Paris\n"},
		{name: "filter len", args: "filter len(name)·==·3 p.csv", out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter unsure column", args: "filter nope?·||·name·eq·'Ann' p.csv", out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter limit", args: "filter -l 1 name p.csv", out: "name,age,city\nJohn,12,Paris\n"},
		{name: "filter from file", args: "filter -f expr.mb l.csv", code: 1, err: `column "age" not found`},
		{name: "filter from file ok", args: "filter -f expr.mb p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\n", code: 1, err: "row 2"},
		{name: "filter unknown column", args: "filter foo>1 p.csv", code: 1, err: `expression: column "foo" not found (columns: name, age, city)`},
		{name: "filter unknown function", args: "filter frob(name) p.csv", code: 1, err: `unknown function "frob" (supported: abs, add`},
		{name: "filter string as number", args: "filter name>1 p.csv", out: "name,age,city\n", code: 1, err: `cannot use "John" as a number (strings compare with eq`},
		{name: "filter syntax error", args: "filter (age p.csv", code: 1, err: `expected ")"`},
		{name: "filter no headers", args: "filter -n col(0)·eq·'2' l.csv", out: "2,bob\n"},
		{name: "filter pipe", args: "filter trim(name)·|·len·==·4 p.csv", out: "name,age,city\nJohn,12,Paris\nLucy,15,\"Lyon, FR\"\n"},
		{name: "filter pipe placeholder", args: `filter name·|·lower(_)·|·startswith(_,·"j") p.csv`, out: "name,age,city\nJohn,12,Paris\n"},
		{name: "filter pipe nested", args: `filter add(name·|·len,·1)·==·4 p.csv`, out: "name,age,city\nAnn,,Nice\n"},
		{name: "filter too deep", args: "filter " + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600) + " p.csv", code: 1, err: "nested more than 500 levels deep"},
		{name: "filter unary too deep", args: "filter " + strings.Repeat("!", 100000) + "1 p.csv", code: 1, err: "nested more than 500 levels deep"},
		// map
		{name: "map pipe", stdin: "name\nle.monde\n", args: `map split(name,·".")·|·first·|·upper·as·n`, out: "name,n\nle.monde,LE\n"},
		{name: "map", stdin: "a,b\n1,4\n5,2\n", args: "map a·+·b·as·c", out: "a,b,c\n1,4,5\n5,2,7\n"},
		{name: "map many", stdin: "a,b\n1,4\n5,2\n", args: "map a·+·b·as·c,·a·*·b·as·d", out: "a,b,c,d\n1,4,5,4\n5,2,7,10\n"},
		{name: "map default name", stdin: "a\nx\n", args: "map upper(a)", out: "a,upper(a)\nx,X\n"},
		{name: "map quoted name and constant", stdin: "a\nx\n", args: `map "john"·as·"from·who"`, out: "a,from who\nx,john\n"},
		{name: "map float and list", stdin: "a\n3\n", args: `map a·/·2·as·h,·split("x,y",·",")·as·l`, out: "a,h,l\n3,1.5,\"[\"\"x\"\",\"\"y\"\"]\"\n"},
		{name: "map error", stdin: "a\nx\n", args: "map a·+·1·as·b", out: "a,b\n", code: 1, err: "row 0: b: +: cannot use \"x\" as a number"},
		{name: "map syntax", stdin: "a\nx\n", args: "map a·as", code: 1, err: "expected a column name after \"as\""},
		// transform, enum
		{name: "transform", stdin: "name,surname\njohn,davis\nmary,sue\n", args: "transform surname upper(_)", out: "name,surname\njohn,DAVIS\nmary,SUE\n"},
		{name: "transform elided", stdin: "name,surname\njohn,davis\n", args: "transform name,surname upper", out: "name,surname\nJOHN,DAVIS\n"},
		{name: "transform rename", stdin: "a,b\n1,2\n", args: "transform -r c b _·*·10·+·a", out: "a,c\n1,21\n"},
		{name: "transform rename many", stdin: "a,b\n1,2\n", args: "transform -r c a,b _", code: 2, err: "exactly one column"},
		{name: "transform error", stdin: "a\nx\n", args: "transform a _·+·1", out: "a\n", code: 1, err: "row 0: a: +: cannot use"},
		{name: "enum", args: "enum l.csv", out: "index,id,name\n0,1,ann\n1,2,bob\n2,3,cid\n"},
		{name: "enum start name", args: "enum -S 1 -c n -s x l.csv", code: 2, err: "unknown option -s"},
		{name: "enum start", args: "enum -S 1 -c n l.csv", out: "n,id,name\n1,1,ann\n2,2,bob\n3,3,cid\n"},
		// agg, groupby
		{name: "agg", args: "agg sum(age)·as·total,·mean(age),·count(),·count(age)·as·n p.csv", out: "total,mean(age),count(),n\n27,13.5,3,2\n"},
		{name: "agg strings", args: `agg values(name),·values(name,·";")·as·v,·distinct_values(city)·as·d,·cardinality(city)·as·k,·first(age)·as·f,·last(age)·as·l p.csv`,
			out: "values(name),v,d,k,f,l\nJohn|Lucy|Ann,John;Lucy;Ann,\"Lyon, FR|Nice|Paris\",3,12,15\n"},
		{name: "agg numbers", stdin: "x\n1\n2\n3\n4\n", args: "agg median(x),·min(x),·max(x),·var(x),·stddev_sample(x),·sum(x·*·1.5)·as·s", out: "median(x),min(x),max(x),var(x),stddev_sample(x),s\n2.5,1,4,1.25,1.2909944487358056,15\n"},
		{name: "agg empty input", stdin: "x\n", args: "agg count()·as·n,·sum(x)·as·s", out: "n,s\n0,\n"},
		{name: "agg all any mode", stdin: "x\na\nb\na\n", args: `agg all(x·eq·"a"),·any(x·eq·"b"),·mode(x)`, out: "\"all(x eq \"\"a\"\")\",\"any(x eq \"\"b\"\")\",mode(x)\nfalse,true,a\n"},
		{name: "agg not an aggregation", args: "agg age p.csv", code: 1, err: "expected an aggregation such as sum(col)"},
		{name: "agg non-number", args: "agg sum(name) p.csv", out: "sum(name)\n", code: 1, err: "row 0: sum(name): sum(): cannot use \"John\" as a number"},
		{name: "groupby", args: "groupby h1 count()·as·n,·values(h2) fr.csv", out: "h1,n,values(h2)\na,3,z|y|y\nb,1,z\n,1,z\n"},
		{name: "groupby two columns", args: "groupby h1,h2 count() fr.csv", out: "h1,h2,count()\na,z,1\na,y,2\nb,z,1\n,z,1\n"},
		{name: "groupby sorted", stdin: "g,v\na,1\na,2\nb,5\na,1\n", args: "groupby -S g sum(v)", out: "g,sum(v)\na,3\nb,5\na,1\n"},
		{name: "groupby missing expression", args: "groupby h1", code: 2, err: "needs a column selection and an expression"},
		{name: "groupby bad column", args: "groupby nope count() fr.csv", code: 1, err: `column "nope" not found`},
		// sort
		{name: "sort lexicographic", args: "sort -s name p.csv", out: "name,age,city\nAnn,,Nice\nJohn,12,Paris\nLucy,15,\"Lyon, FR\"\n"},
		{name: "sort reverse", args: "sort -R -s name p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\nJohn,12,Paris\nAnn,,Nice\n"},
		{name: "sort numeric", args: "sort -N -s n nums.csv", out: "n,s\nx,d\n-1.5,c\n9,a\n10,b\n"},
		{name: "sort lexicographic numbers", args: "sort -s n nums.csv", out: "n,s\n-1.5,c\n10,b\n9,a\nx,d\n"},
		{name: "sort uniq", stdin: "a\nb\na\nb\n", args: "sort -u", out: "a\na\nb\n"},
		{name: "sort check", args: "sort --check -s name p.csv", code: 1, err: "file is not sorted! (row 1 comes before row 2)"},
		{name: "sort check ok", args: "sort --check -s id l.csv", out: "file is correctly sorted!\n"},
		{name: "sort uniq count", stdin: "a,b\n2,x\n1,y\n2,z\n", args: "sort -u -c n -s a", out: "a,b,n\n1,y,1\n2,x,2\n"},
		{name: "sort uniq numeric compares strings", stdin: "a\n1.0\n1\n", args: "sort -N -u", out: "a\n1.0\n1\n"},
		{name: "sort count needs uniq", stdin: "a\n1\n", args: "sort -c n", code: 2, err: "--count can only be used with --uniq"},
		{name: "sort no headers", args: "sort -n -s 0 fr.csv", out: ",z\na,z\na,y\na,y\nb,z\nh1,h2\n"},
		// frequency
		{name: "frequency", args: "frequency fr.csv", out: "field,value,count\nh1,a,3\nh1,<empty>,1\nh1,b,1\nh2,z,3\nh2,y,2\n"},
		{name: "freq alias select", args: "freq -s h2 fr.csv", out: "field,value,count\nh2,z,3\nh2,y,2\n"},
		{name: "frequency limit rest", args: "frequency -l 1 -s h1 fr.csv", out: "field,value,count\nh1,a,3\nh1,<rest>,2\n"},
		{name: "frequency no extra", args: "frequency -N -l 1 fr.csv", out: "field,value,count\nh1,a,3\nh2,z,3\n"},
		{name: "frequency no headers", args: "frequency -n -A -s 0 fr.csv", out: "field,value,count\n0,a,3\n0,<empty>,1\n0,b,1\n0,h1,1\n"},
		{name: "frequency sep", stdin: "t\na|b\nb\n", args: "frequency --sep |", out: "field,value,count\nt,b,2\nt,a,1\n"},
		{name: "frequency bad limit", args: "frequency -l x fr.csv", code: 2, err: "--limit needs a non-negative integer"},
		// stats
		{name: "stats", args: "stats p.csv", out: "field,count,count_empty,type,types,sum,mean,variance,stddev,min,max,lex_first,lex_last,min_length,max_length\n" +
			"name,3,0,string,string,,,,,,,Ann,Lucy,3,4\n" +
			"age,2,1,int,int|empty,27,13.5,2.25,1.5,12,15,12,15,0,2\n" +
			"city,3,0,string,string,,,,,,,\"Lyon, FR\",Paris,4,8\n"},
		{name: "stats floats", stdin: "x\n1.5\n2\n\"\"\nhi\n", args: "stats -s x", out: "field,count,count_empty,type,types,sum,mean,variance,stddev,min,max,lex_first,lex_last,min_length,max_length\n" +
			"x,3,1,string,int|float|string|empty,3.5,1.75,0.0625,0.25,1.5,2,1.5,hi,0,3\n"},
		{name: "stats nulls", stdin: "x\n5\n\"\"\n15\n10\n", args: "stats --nulls -s x", out: "field,count,count_empty,type,types,sum,mean,variance,stddev,min,max,lex_first,lex_last,min_length,max_length\n" +
			"x,3,1,int,int|empty,30,7.5,31.249999999999996,5.590169943749474,5,15,10,5,0,2\n"},
		{name: "stats cardinality", stdin: "x\na\nb\na\n", args: "stats -c", out: "field,count,count_empty,type,types,sum,mean,variance,stddev,min,max,cardinality,mode,tied_for_mode,lex_first,lex_last,min_length,max_length\n" +
			"x,3,0,string,string,,,,,,,2,a,1,a,b,1,1\n"},
		{name: "stats empty column", stdin: "x\n\"\"\n", args: "stats", out: "field,count,count_empty,type,types,sum,mean,variance,stddev,min,max,lex_first,lex_last,min_length,max_length\n" +
			"x,0,1,empty,empty,,,,,,,,,0,0\n"},
		{name: "stats no headers field", stdin: "a\n", args: "stats -n", out: "field,count,count_empty,type,types,sum,mean,variance,stddev,min,max,lex_first,lex_last,min_length,max_length\n" +
			"0,1,0,string,string,,,,,,,a,a,1,1\n"},
		// slice, head, tail
		{name: "slice start len", args: "slice -s 1 -l 2 l.csv", out: "id,name\n2,bob\n3,cid\n"},
		{name: "slice end", args: "slice -e 1 l.csv", out: "id,name\n1,ann\n"},
		{name: "slice index", args: "slice -i 2,0 l.csv", out: "id,name\n1,ann\n3,cid\n"},
		{name: "slice last", args: "slice -L 1 l.csv", out: "id,name\n3,cid\n"},
		{name: "slice no headers", args: "slice -n -s 3 l.csv", out: "3,cid\n"},
		{name: "head", args: "head -l 2 l.csv", out: "id,name\n1,ann\n2,bob\n"},
		{name: "head default", args: "head l.csv", out: "id,name\n1,ann\n2,bob\n3,cid\n"},
		{name: "tail", args: "tail -l 2 l.csv", out: "id,name\n2,bob\n3,cid\n"},
		{name: "tail zero", args: "tail -l 0 l.csv", out: "id,name\n"},
		{name: "tail more than rows", args: "tail -l 9 l.csv", out: "id,name\n1,ann\n2,bob\n3,cid\n"},
		{name: "slice bad number", args: "slice -s -2 l.csv", code: 2, err: "--start needs a non-negative integer"},
		// to
		{name: "to json", args: "to json p.csv", out: "[\n  {\n    \"name\": \"John\",\n    \"age\": 12,\n    \"city\": \"Paris\"\n  },\n  {\n    \"name\": \"Lucy\",\n    \"age\": 15,\n    \"city\": \"Lyon, FR\"\n  },\n  {\n    \"name\": \"Ann\",\n    \"age\": \"\",\n    \"city\": \"Nice\"\n  }\n]\n"},
		{name: "to json nulls", stdin: "h1,h2\na,\n", args: "to json --nulls", out: "[\n  {\n    \"h1\": \"a\",\n    \"h2\": null\n  }\n]\n"},
		{name: "to json omit", stdin: "h1,h2\na,\nc,d\n", args: "to json --omit", out: "[\n  {\n    \"h1\": \"a\"\n  },\n  {\n    \"h1\": \"c\",\n    \"h2\": \"d\"\n  }\n]\n"},
		{name: "to json floats", stdin: "x,y\n1,1\n2.5,007\n", args: "to jsonl", out: "{\"x\":1.0,\"y\":1}\n{\"x\":2.5,\"y\":7}\n"},
		{name: "to json mixed stays string", stdin: "x\n1\na\n", args: "to jsonl", out: "{\"x\":\"1\"}\n{\"x\":\"a\"}\n"},
		{name: "to json sample size", stdin: "x\n1\na\n", args: "to ndjson --sample-size 1", out: "{\"x\":1}\n{\"x\":\"a\"}\n"},
		{name: "to json escapes", stdin: "x\n\"a\"\"b\\c\n<d>\"\n", args: "to jsonl", out: "{\"x\":\"a\\\"b\\\\c\\n<d>\"}\n"},
		{name: "to json big int string", stdin: "x\n9007199254740993\n", args: "to jsonl", out: "{\"x\":\"9007199254740993\"}\n"},
		{name: "to json empty", stdin: "x\n", args: "to json", out: "[]\n"},
		{name: "to md", stdin: "name,age\nJohn,12\nLucy,15\n", args: "to md", out: "| name | age |\n| ---- | --- |\n| John | 12  |\n| Lucy | 15  |\n"},
		{name: "to md escapes", stdin: "a\nx|y\n", args: "to md", out: "| a    |\n| ---- |\n| x\\|y |\n"},
		{name: "to txt", args: "to txt -s name l.csv", out: "ann\nbob\ncid\n"},
		{name: "to txt many columns", args: "to txt l.csv", code: 1, err: "single column"},
		{name: "to unknown", args: "to xlsx l.csv", code: 2, err: "formats are json"},
		// from
		{name: "from json", args: "from data.json", out: "name,age,meta.x,meta.tags,ok\nJohn,34,1,\"[\"\"a\"\",\"\"b\"\"]\",\nLucy,,,,true\n"},
		{name: "from jsonl", args: "from data.jsonl", out: "a,b\n1,\n,x\n"},
		{name: "from json object", args: "from obj.json", out: "key,value\nk1,v1\nk2,\"[1,2]\"\n"},
		{name: "from json single object", args: "from --single-object obj.json", out: "k1,k2\nv1,\"[1,2]\"\n"},
		{name: "from stdin needs format", stdin: "[]", args: "from", code: 2, err: "give the input format with -f"},
		{name: "from stdin format", stdin: `[1,"a"]`, args: "from -f json", out: "value\n1\na\n"},
		{name: "from bad json", stdin: "[\n{\"a\":}\n]", args: "from -f json", code: 1, err: "<stdin>: line 2: invalid JSON"},
		{name: "from json too deep", stdin: strings.Repeat("[", 100000), args: "from -f json", code: 1, err: "nested more than 500 levels deep"},
		{name: "from txt", args: "from -c word lines.txt", out: "word\none\ntwo\nthree\n"},
		// view, flatten
		{name: "view", args: "view p.csv", out: "Displaying 3 cols from 3 rows of p.csv\n" +
			"┌───┬──────┬─────────┬──────────┐\n" +
			"│ - │ name │ age     │ city     │\n" +
			"├───┼──────┼─────────┼──────────┤\n" +
			"│ 0 │ John │ 12      │ Paris    │\n" +
			"│ 1 │ Lucy │ 15      │ Lyon, FR │\n" +
			"│ 2 │ Ann  │ <empty> │ Nice     │\n" +
			"└───┴──────┴─────────┴──────────┘\n"},
		{name: "view limited", args: "v -l 1 -s name l.csv", out: "Displaying 1 col from 1 first rows of l.csv\n" +
			"┌───┬──────┐\n│ - │ name │\n├───┼──────┤\n│ 0 │ ann  │\n│ … │ …    │\n└───┴──────┘\n"},
		{name: "view borderless", args: "view -t borderless -I -M l.csv", out: "id  name\n1   ann\n2   bob\n3   cid\n"},
		{name: "view newline and wide", stdin: "a\n\"x\ny\"\n日本\n", args: "view -M -I", out: "┌──────┐\n│ a    │\n├──────┤\n│ x⏎y  │\n│ 日本 │\n└──────┘\n"},
		{name: "view cuts long cells", stdin: "a\n" + strings.Repeat("x", 50) + "\n", args: "view -M -I -H", out: "┌──────────────────────────────────────────┐\n│ " + strings.Repeat("x", 39) + "… │\n└──────────────────────────────────────────┘\n"},
		{name: "flatten", args: "flatten -l 1 l.csv", out: "Row n°0\n" + strings.Repeat("─", 79) + "\nid   1\nname ann\n"},
		{name: "flatten empty and multiline", stdin: "k,long\n,\"a\nb\"\n", args: "flatten --row-separator=", out: "k    <empty>\nlong a\n     b\n"},
		{name: "flatten csv", args: "flatten --csv -s name l.csv", out: "row,field,value\n0,name,ann\n1,name,bob\n2,name,cid\n"},
		{name: "flatten separator", args: "f --row-separator --- -s name l.csv", out: "name ann\n---\nname bob\n---\nname cid\n"},
		// cat
		{name: "cat rows", args: "cat rows l.csv l.csv", out: "id,name\n1,ann\n2,bob\n3,cid\n1,ann\n2,bob\n3,cid\n"},
		{name: "cat rows source", args: "cat rows -S src l.csv sub/x.csv", code: 1, err: "sub/x.csv has 1 columns but l.csv has 2"},
		{name: "cat rows source column", args: "cat rows -S src sub/x.csv sub/x.csv", out: "src,a\nsub/x.csv,1\nsub/x.csv,1\n"},
		{name: "cat columns", args: "cat columns l.csv r.csv", out: "id,name,id,score\n1,ann,2,20\n2,bob,3,30\n3,cid,4,40\n"},
		{name: "cat columns pad", args: "cat columns -p sub/x.csv l.csv", out: "a,id,name\n1,1,ann\n,2,bob\n,3,cid\n"},
		{name: "cat needs mode", args: "cat l.csv", code: 2, err: "say cat rows or cat columns"},
		// dedup
		{name: "dedup", args: "dedup -s h1 fr.csv", out: "h1,h2\na,z\nb,z\n,z\n"},
		{name: "dedup all columns", args: "dedup fr.csv", out: "h1,h2\na,z\na,y\nb,z\n,z\n"},
		{name: "dedup keep last", args: "dedup -l -s h1 fr.csv", out: "h1,h2\na,y\nb,z\n,z\n"},
		{name: "dedup keep last order", stdin: "k,v\na,1\nb,2\na,3\n", args: "dedup -l -s k", out: "k,v\nb,2\na,3\n"},
		{name: "dedup sorted", args: "dedup -S -s h1 fr.csv", out: "h1,h2\na,z\nb,z\n,z\n"},
		{name: "dedup check", args: "dedup --check -s id r.csv", code: 1, err: "duplicate found at row 3: 3"},
		{name: "dedup check ok", args: "dedup --check -s id l.csv", out: ""},
		// rename, behead
		{name: "rename all", args: "rename a,b l.csv", out: "a,b\n1,ann\n2,bob\n3,cid\n"},
		{name: "rename select", args: "rename NAME -s name l.csv", out: "id,NAME\n1,ann\n2,bob\n3,cid\n"},
		{name: "rename quoted", args: `rename "x,y",z l.csv`, out: "\"x,y\",z\n1,ann\n2,bob\n3,cid\n"},
		{name: "rename prefix", args: "rename --prefix p_ l.csv", out: "p_id,p_name\n1,ann\n2,bob\n3,cid\n"},
		{name: "rename add headers", args: "rename -n a,b l.csv", out: "a,b\nid,name\n1,ann\n2,bob\n3,cid\n"},
		{name: "rename count mismatch", args: "rename a l.csv", code: 1, err: "got 1 new names for 2 columns"},
		{name: "rename force", args: "rename -f -s nope,name N l.csv", out: "id,N\n1,ann\n2,bob\n3,cid\n"},
		{name: "behead", args: "behead l.csv", out: "1,ann\n2,bob\n3,cid\n"},
		{name: "behead ragged kept", args: "behead ragged.csv", out: "1,2\n3\n"},
		// join
		{name: "join inner", args: "join id l.csv id r.csv", out: "id,name,id,score\n2,bob,2,20\n3,cid,3,30\n3,cid,3,31\n"},
		{name: "join left", args: "join --left id l.csv id r.csv", out: "id,name,id,score\n1,ann,,\n2,bob,2,20\n3,cid,3,30\n3,cid,3,31\n"},
		{name: "join right", args: "join --right id l.csv id r.csv", out: "id,name,id,score\n2,bob,2,20\n3,cid,3,30\n,,4,40\n3,cid,3,31\n"},
		{name: "join full", args: "join --full id l.csv id r.csv", out: "id,name,id,score\n1,ann,,\n2,bob,2,20\n3,cid,3,30\n3,cid,3,31\n,,4,40\n"},
		{name: "join semi", args: "join --semi id l.csv id r.csv", out: "id,name\n2,bob\n3,cid\n"},
		{name: "join anti", args: "join --anti id l.csv id r.csv", out: "id,name\n1,ann\n"},
		{name: "join prefixes", args: "join -L l_ -R r_ id l.csv id r.csv", out: "l_id,l_name,r_id,r_score\n2,bob,2,20\n3,cid,3,30\n3,cid,3,31\n"},
		{name: "join stdin", stdin: "k\n1\n", args: "join id l.csv k -", out: "id,name,k\n1,ann,1\n"},
		{name: "join ignore case", stdin: "k\nBOB\n", args: "join -i name l.csv k -", out: "id,name,k\n2,bob,BOB\n"},
		{name: "join bad column", args: "join nope l.csv id r.csv", code: 1, err: `l.csv: column "nope" not found`},
		{name: "join arity", args: "join id l.csv", code: 2, err: "four arguments"},
		// reverse, transpose
		{name: "reverse", args: "reverse l.csv", out: "id,name\n3,cid\n2,bob\n1,ann\n"},
		{name: "transpose", args: "transpose l.csv", out: "id,1,2,3\nname,ann,bob,cid\n"},
		// fixlengths
		{name: "fixlengths", args: "fixlengths ragged.csv", out: "a,b\n1,2\n3,\n"},
		{name: "fixlengths stdin", stdin: "a,b,,\n1\n", args: "fixlengths", out: "a,b\n1,\n"},
		{name: "fixlengths length", stdin: "a,b,c\n1\n", args: "fixlengths -l 2", out: "a,b\n1,\n"},
		{name: "fixlengths zero", stdin: "a\n", args: "fixlengths -l 0", code: 2, err: "at least 1"},
		// usage
		{name: "unknown command", args: "frobnicate", code: 2, err: `xan: unknown command "frobnicate"`},
		{name: "unknown option", args: "count --frob p.csv", code: 2, err: "unknown option --frob"},
		{name: "option needs value", args: "head -l", code: 2, err: "option -l needs a value"},
		{name: "switch with value", args: "count --check-alignment=1 p.csv", code: 2, err: "takes no value"},
		{name: "too many inputs", args: "count p.csv l.csv", code: 2, err: "too many arguments: l.csv"},
		{name: "bundled switches", args: "search -ve -s age 12 p.csv", out: "name,age,city\nLucy,15,\"Lyon, FR\"\nAnn,,Nice\n"},
		{name: "attached value", args: "head -l1 l.csv", out: "id,name\n1,ann\n"},
		{name: "long equals", args: "head --limit=1 l.csv", out: "id,name\n1,ann\n"},
		{name: "output same as input", args: "sort -o l.csv l.csv", code: 1, err: "output file l.csv is also an input"},
	}
	sb := commandtest.New(t)
	sb.WriteFiles(t, files)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"xan"}
			for _, a := range strings.Split(tc.args, " ") {
				args = append(args, strings.ReplaceAll(a, "·", " "))
			}
			r := sb.Run(ctx, Run, tc.stdin, args...)
			if r.Code != tc.code || r.Stdout != tc.out || !strings.Contains(r.Stderr, tc.err) {
				t.Errorf("xan %q:\n got code %d stdout %q stderr %q\nwant code %d stdout %q stderr ~%q",
					args[1:], r.Code, r.Stdout, r.Stderr, tc.code, tc.out, tc.err)
			}
			if tc.err == "" && r.Stderr != "" {
				t.Errorf("unexpected stderr %q", r.Stderr)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	r := sb.Run(ctx, Run, "", "xan", "--help")
	if r.Code != 0 || !strings.Contains(r.Stdout, "frequency (freq)") || !strings.Contains(r.Stdout, "Common options:") {
		t.Errorf("xan --help: %+v", r)
	}
	for _, s := range subcommands {
		r := sb.Run(ctx, Run, "", "xan", s.name, "--help")
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "xan "+s.name+": ") || !strings.Contains(r.Stdout, "Usage:\n    xan "+s.name) {
			t.Errorf("xan %s --help: %+v", s.name, r)
		}
	}
	if r := sb.Run(ctx, Run, "", "xan", "view", "--help"); !strings.Contains(r.Stdout, "-t, --theme") || strings.Contains(r.Stdout, "-t, --tabs") {
		t.Errorf("view's -t is its theme, --tabs keeps only its long name:\n%s", r.Stdout)
	}
	if r := sb.Run(ctx, Run, "", "xan"); r.Code != 2 || !strings.Contains(r.Stderr, "Commands:") {
		t.Errorf("bare xan: %+v", r)
	}
	if r := sb.Run(ctx, Run, "", "xan", "help", "sort"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "xan sort: ") {
		t.Errorf("xan help sort: %+v", r)
	}
	spec := Commands()[0]
	if spec.Name != "xan" || spec.Summary == "" || len(spec.Flags) < len(subcommands) || spec.Func == nil {
		t.Errorf("spec: %+v", spec)
	}
}

// TestOutputFile writes through -o (a .tsv output gets tabs) and checks
// the file, and that every output round-trips through encoding/csv.
func TestOutputFile(t *testing.T) {
	ctx := context.Background()
	sb := commandtest.New(t)
	sb.WriteFiles(t, files)
	r := sb.Run(ctx, Run, "", "xan", "select", "-o", "out/x.tsv", "city,name", "p.csv")
	if r.Code != 1 || !strings.Contains(r.Stderr, "out/x.tsv: No such file or directory") {
		t.Fatalf("missing folder: %+v", r)
	}
	r = sb.Run(ctx, Run, "", "xan", "select", "-o", "x.tsv", "city,name", "p.csv")
	if r.Code != 0 || r.Stdout != "" {
		t.Fatalf("select -o: %+v", r)
	}
	got, err := os.ReadFile(filepath.Join(sb.Workspace, "x.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "city\tname\nParis\tJohn\nLyon, FR\tLucy\nNice\tAnn\n"; string(got) != want {
		t.Errorf("x.tsv = %q, want %q", got, want)
	}
	r = sb.Run(ctx, Run, "", "xan", "select", "-o", "/tmp/y.csv", "text", "tricky.csv")
	if r.Code != 1 {
		t.Fatalf("ragged input: %+v", r)
	}
	got, _ = os.ReadFile(filepath.Join(sb.Tmp, "y.csv"))
	rows, err := csv.NewReader(strings.NewReader(string(got))).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][0] != `say "hi"` || rows[2][0] != "two\nlines" {
		t.Errorf("rows written before the error: %q (%v)", rows, err)
	}
}
