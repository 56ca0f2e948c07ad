// Package htmlmd is the runner's `html-to-markdown` command: HTML from
// stdin or a workspace file turned into CommonMark with
// JohannesKaufmann/html-to-markdown v2, with the flags of its html2markdown
// CLI (domain for relative links, CSS include/exclude selectors, the table
// and strikethrough plugins and the common style options). Files are read
// and written only through the command's confined FS.
package htmlmd

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/JohannesKaufmann/dom"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/wsfs/wsfs/runner/command"
)

// Commands lists the command this package provides.
func Commands() []command.Spec {
	return []command.Spec{{
		Name:    "html-to-markdown",
		Summary: "convert HTML (stdin or FILE) to Markdown",
		Flags: []string{"--input=FILE", "--output=FILE", "--domain=URL", "--include-selector=CSS",
			"--exclude-selector=CSS", "--plugin-table", "--plugin-strikethrough", "--opt-strong-delimiter=** or __",
			"--opt-em-delimiter=* or _", "--opt-heading-style=atx|setext", "--opt-bullet-list-marker=-|+|*",
			"--opt-code-block-fence=``` or ~~~", "--opt-horizontal-rule=STR", "--opt-table-header-promotion",
			"--opt-table-skip-empty-rows", "--opt-table-span-cell-behavior=empty|mirror",
			"--opt-table-newline-behavior=skip|preserve", "--opt-table-cell-padding-behavior=aligned|minimal|none"},
		Func: Run,
	}}
}

// maxInput bounds the HTML read into memory.
const maxInput = 64 << 20

type config struct {
	input, output                        string
	domain                               string
	include, exclude                     string
	pluginTable, pluginStrike            bool
	strong, em, heading, bullet, fence   string
	rule                                 string
	tableHeader, tableSkipEmpty          bool
	tableSpan, tableNewline, tablePadded string
}

// Run is the html-to-markdown command.
func Run(ctx context.Context, env *command.Env) int {
	var c config
	fl := flag.NewFlagSet(env.Name(), flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&c.input, "input", "", "")
	fl.StringVar(&c.output, "output", "", "")
	fl.StringVar(&c.domain, "domain", "", "")
	fl.StringVar(&c.include, "include-selector", "", "")
	fl.StringVar(&c.exclude, "exclude-selector", "", "")
	fl.BoolVar(&c.pluginTable, "plugin-table", false, "")
	fl.BoolVar(&c.pluginStrike, "plugin-strikethrough", false, "")
	fl.StringVar(&c.strong, "opt-strong-delimiter", "", "")
	fl.StringVar(&c.em, "opt-em-delimiter", "", "")
	fl.StringVar(&c.heading, "opt-heading-style", "", "")
	fl.StringVar(&c.bullet, "opt-bullet-list-marker", "", "")
	fl.StringVar(&c.fence, "opt-code-block-fence", "", "")
	fl.StringVar(&c.rule, "opt-horizontal-rule", "", "")
	fl.BoolVar(&c.tableHeader, "opt-table-header-promotion", false, "")
	fl.BoolVar(&c.tableSkipEmpty, "opt-table-skip-empty-rows", false, "")
	fl.StringVar(&c.tableSpan, "opt-table-span-cell-behavior", "", "")
	fl.StringVar(&c.tableNewline, "opt-table-newline-behavior", "", "")
	fl.StringVar(&c.tablePadded, "opt-table-cell-padding-behavior", "", "")
	if err := fl.Parse(env.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(env.Stdout, "usage: %s [flags] [FILE]\nflags: %s\n", env.Name(), strings.Join(Commands()[0].Flags, " "))
			return 0
		}
		env.Errorf("%v (usage: %s [flags] [FILE]; see `help`)", err, env.Name())
		return 2
	}
	args := fl.Args()
	if c.input != "" {
		args = append([]string{c.input}, args...)
	}
	if len(args) > 1 {
		env.Errorf("one input at a time: got %d files", len(args))
		return 2
	}
	name := "-"
	if len(args) == 1 {
		name = args[0]
	}
	input, err := readInput(env, name)
	if err != nil {
		env.Errorf("%v", err)
		return 1
	}
	md, err := c.convert(ctx, input)
	if err != nil {
		env.Errorf("%v", err)
		return 1
	}
	if len(md) > 0 && md[len(md)-1] != '\n' {
		md = append(md, '\n')
	}
	if c.output != "" {
		if err := writeFile(env, c.output, md); err != nil {
			env.Errorf("%v", err)
			return 1
		}
		return 0
	}
	if _, err := env.Stdout.Write(md); err != nil {
		return 1
	}
	return 0
}

func readInput(env *command.Env, name string) ([]byte, error) {
	var r io.Reader = env.Stdin
	if name != "-" {
		f, err := env.FS.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, command.Strerror(err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: Is a directory", name)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, command.Strerror(err))
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxInput>>20)
	}
	return data, nil
}

func writeFile(env *command.Env, name string, data []byte) error {
	f, err := env.FS.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %s", name, command.Strerror(err))
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("%s: %s", name, command.Strerror(werr))
	}
	return nil
}

func (c *config) convert(ctx context.Context, input []byte) ([]byte, error) {
	var cm []commonmark.OptionFunc
	if c.strong != "" {
		cm = append(cm, commonmark.WithStrongDelimiter(c.strong))
	}
	if c.em != "" {
		cm = append(cm, commonmark.WithEmDelimiter(c.em))
	}
	switch c.heading {
	case "":
	case "atx":
		cm = append(cm, commonmark.WithHeadingStyle(commonmark.HeadingStyleATX))
	case "setext":
		cm = append(cm, commonmark.WithHeadingStyle(commonmark.HeadingStyleSetext))
	default:
		return nil, fmt.Errorf("--opt-heading-style=%q: want atx or setext", c.heading)
	}
	if c.bullet != "" {
		cm = append(cm, commonmark.WithBulletListMarker(c.bullet))
	}
	if c.fence != "" {
		cm = append(cm, commonmark.WithCodeBlockFence(c.fence))
	}
	if c.rule != "" {
		cm = append(cm, commonmark.WithHorizontalRule(c.rule))
	}
	plugins := []converter.Plugin{base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(cm...)}
	if c.pluginStrike {
		plugins = append(plugins, strikethrough.NewStrikethroughPlugin())
	}
	if c.pluginTable {
		plugins = append(plugins, table.NewTablePlugin(
			table.WithHeaderPromotion(c.tableHeader),
			table.WithSkipEmptyRows(c.tableSkipEmpty),
			table.WithSpanCellBehavior(table.SpanCellBehavior(orDefault(c.tableSpan, string(table.SpanBehaviorEmpty)))),
			table.WithNewlineBehavior(table.NewlineBehavior(orDefault(c.tableNewline, string(table.NewlineBehaviorSkip)))),
			table.WithCellPaddingBehavior(table.CellPaddingBehavior(orDefault(c.tablePadded, string(table.CellPaddingBehaviorAligned)))),
		))
	}
	conv := converter.NewConverter(converter.WithPlugins(plugins...))

	doc, err := html.Parse(bytes.NewReader(input))
	if err != nil {
		return nil, fmt.Errorf("cannot parse the HTML: %w", err)
	}
	if c.include != "" {
		sel, err := cascadia.ParseGroup(c.include)
		if err != nil {
			return nil, fmt.Errorf("--include-selector %q: %w", c.include, err)
		}
		root := &html.Node{Type: html.DocumentNode}
		for _, n := range cascadia.QueryAll(doc, sel) {
			dom.RemoveNode(n)
			root.AppendChild(n)
		}
		doc = root
	}
	if c.exclude != "" {
		sel, err := cascadia.ParseGroup(c.exclude)
		if err != nil {
			return nil, fmt.Errorf("--exclude-selector %q: %w", c.exclude, err)
		}
		for _, n := range cascadia.QueryAll(doc, sel) {
			dom.RemoveNode(n)
		}
	}
	md, err := conv.ConvertNode(doc, converter.WithDomain(c.domain), converter.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("cannot convert: %w", err)
	}
	return md, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
