package htmlmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wsfs/wsfs/runner/command/commandtest"
)

const page = `<html><head><title>T</title><style>p{}</style></head><body>
<nav><a href="/home">Home</a></nav>
<article>
<h1>Title</h1>
<p>Some <strong>bold</strong> and <em>italic</em> text with a <a href="/docs/x.html">link</a>.</p>
<ul><li>one</li><li>two</li></ul>
<pre><code class="language-go">fmt.Println("hi")
</code></pre>
<p><del>old</del></p>
<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
</article>
<footer>foot</footer>
</body></html>`

func TestHTMLToMarkdown(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		stdin string
		args  []string
		out   string
		code  int
		err   string
	}{
		{name: "paragraph", stdin: "<p>Hello <b>world</b></p>", out: "Hello **world**\n"},
		{name: "heading", stdin: "<h2>Sub</h2>", out: "## Sub\n"},
		{name: "setext", stdin: "<h1>Big</h1>", args: []string{"--opt-heading-style=setext"}, out: "Big\n===\n"},
		{name: "bad heading style", stdin: "<h1>Big</h1>", args: []string{"--opt-heading-style=x"}, code: 1, err: "atx or setext"},
		{name: "strong underscore", stdin: "<strong>x</strong>", args: []string{"--opt-strong-delimiter=__"}, out: "__x__\n"},
		{name: "em underscore", stdin: "<em>x</em>", args: []string{"--opt-em-delimiter=_"}, out: "_x_\n"},
		{name: "list", stdin: "<ul><li>a</li><li>b</li></ul>", out: "- a\n- b\n"},
		{name: "bullet plus", stdin: "<ul><li>a</li></ul>", args: []string{"--opt-bullet-list-marker=+"}, out: "+ a\n"},
		{name: "ordered", stdin: "<ol><li>a</li><li>b</li></ol>", out: "1. a\n2. b\n"},
		{name: "link domain", stdin: `<a href="/x">y</a>`, args: []string{"--domain", "https://ex.org"}, out: "[y](https://ex.org/x)\n"},
		{name: "link relative", stdin: `<a href="/x">y</a>`, out: "[y](/x)\n"},
		{name: "code block", stdin: "<pre><code>a\nb</code></pre>", out: "```\na\nb\n```\n"},
		{name: "code fence tilde", stdin: "<pre><code>a</code></pre>", args: []string{"--opt-code-block-fence=~~~"}, out: "~~~\na\n~~~\n"},
		{name: "rule", stdin: "<hr>", args: []string{"--opt-horizontal-rule=---"}, out: "---\n"},
		{name: "escape", stdin: "<p>1. not a list *x*</p>", out: "1\\. not a list \\*x*\n"},
		{name: "script dropped", stdin: "<p>a</p><script>alert(1)</script>", out: "a\n"},
		{name: "strike off", stdin: "<del>x</del>", out: "x\n"},
		{name: "strike on", stdin: "<del>x</del>", args: []string{"--plugin-strikethrough"}, out: "~~x~~\n"},
		{name: "table", stdin: "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>22</td></tr></table>",
			args: []string{"--plugin-table"}, out: "| A | B  |\n|---|----|\n| 1 | 22 |\n"},
		{name: "file", args: []string{"p.html"}, out: "# From file\n"},
		{name: "input flag", args: []string{"--input", "p.html"}, out: "# From file\n"},
		{name: "include", args: []string{"--include-selector=article h1", "page.html"}, out: "# Title\n"},
		{name: "exclude", stdin: "<p>keep</p><div class=ad>ad</div>", args: []string{"--exclude-selector=.ad"}, out: "keep\n"},
		{name: "bad selector", stdin: "<p>x</p>", args: []string{"--include-selector=[["}, code: 1, err: "--include-selector"},
		{name: "missing file", args: []string{"nope.html"}, code: 1, err: "nope.html: No such file or directory"},
		{name: "escape confined", args: []string{"/etc/passwd"}, code: 1, err: "No such file"},
		{name: "two files", args: []string{"p.html", "page.html"}, code: 2, err: "one input"},
		{name: "unknown flag", stdin: "x", args: []string{"--nope"}, code: 2, err: "nope"},
		{name: "empty", stdin: "", out: ""},
	}
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"p.html": "<h1>From file</h1>", "page.html": page})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := sb.Run(ctx, Run, tc.stdin, append([]string{"html-to-markdown"}, tc.args...)...)
			if r.Code != tc.code || r.Stdout != tc.out || !strings.Contains(r.Stderr, tc.err) {
				t.Errorf("html-to-markdown %q:\n got code %d stdout %q stderr %q\nwant code %d stdout %q stderr ~%q",
					tc.args, r.Code, r.Stdout, r.Stderr, tc.code, tc.out, tc.err)
			}
		})
	}
}

func TestWholePage(t *testing.T) {
	sb := commandtest.New(t)
	sb.WriteFiles(t, map[string]string{"page.html": page})
	r := sb.Run(context.Background(), Run, "", "html-to-markdown", "--plugin-table", "--plugin-strikethrough",
		"--exclude-selector=nav,footer", "--domain=https://ex.org", "--output", "out/page.md", "page.html")
	if r.Code == 0 {
		t.Fatalf("--output into a missing folder succeeded: %+v", r)
	}
	if err := os.Mkdir(filepath.Join(sb.Workspace, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = sb.Run(context.Background(), Run, "", "html-to-markdown", "--plugin-table", "--plugin-strikethrough",
		"--exclude-selector=nav,footer", "--domain=https://ex.org", "--output", "out/page.md", "page.html")
	if r.Code != 0 || r.Stdout != "" {
		t.Fatalf("html-to-markdown: %+v", r)
	}
	got, err := os.ReadFile(filepath.Join(sb.Workspace, "out", "page.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nSome **bold** and *italic* text with a [link](https://ex.org/docs/x.html).\n\n- one\n- two\n\n" +
		"```go\nfmt.Println(\"hi\")\n```\n\n~~old~~\n\n| A | B |\n|---|---|\n| 1 | 2 |\n"
	if string(got) != want {
		t.Errorf("page.md:\n%s\nwant:\n%s", got, want)
	}
}
