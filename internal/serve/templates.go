package serve

// pageTemplates are the pages: one layout, a page each. Links carry query
// terms only, never the token.
const pageTemplates = `
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><title>storbench: {{.Title}}</title>
<style>body{font:14px system-ui,sans-serif;margin:1.2em 2em;color:#222}nav a{margin-right:1.2em}
table{border-collapse:collapse;margin:.8em 0}td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}.err{color:#b00;font-weight:600}
.faster{color:#070}.slower{color:#b00;font-weight:600}form input[type=text]{width:28em}
{{css}}</style></head><body>
<nav><b>storbench</b> <a href="/">Runs</a><a href="/compare">Compare</a><a href="/trend">Trend</a></nav>
<h1>{{.Title}}</h1>{{if .Error}}<p class="err" id="error">{{.Error}}</p>{{end}}{{end}}

{{define "runs"}}{{template "head" .}}
<form method="get" action="/"><label>Filter (query terms, as storbench runs takes them): <input type="text" name="q" value="{{.Q}}" placeholder="label=tuning=default fs=xfs since=30d"></label> <button>Filter</button></form>
{{if not .Error}}<p>{{len .Runs}} runs{{if .Query}} matching <code>{{.Query}}</code>{{end}}, newest first (the newest 200 unless last=), in {{.Where}}.</p>
<table id="runs"><tr><th>run</th><th>name</th><th>status</th><th>started (UTC)</th><th>labels</th><th>fs</th><th>hosts</th>{{if .Spec}}<th>share of {{or .Spec.Name "the spec"}}'s claims</th>{{end}}<th>report</th></tr>
{{range .Runs}}<tr class="run" data-run="{{.RunID}}"><td>{{.RunID}}</td><td>{{.Name}}</td><td>{{.Status}}</td><td>{{when .StartedAt}}</td><td>{{.LabelText}}</td><td>{{.FSType}}</td><td class="n">{{.Hosts}}</td>{{if $.Spec}}<td class="spec">{{range .Shares}}{{.}}<br>{{else}}-{{end}}</td>{{end}}
<td>{{if .Report}}<a href="/run/{{.RunID}}/report.html">report</a>{{else}}no report{{end}} <a href="/compare?a=id%3D{{.RunID}}">compare…</a></td></tr>
{{end}}</table>{{end}}</body></html>{{end}}

{{define "compare"}}{{template "head" .}}
<form method="get" action="/compare"><p><label>Before (a run: id=RUN, or a group: label=tuning=default): <input type="text" name="a" value="{{.A}}"></label></p>
<p><label>After: <input type="text" name="b" value="{{.B}}"></label></p><button>Compare</button></form>
{{with .Cmp}}<p>Before: <code>{{.Before}}</code>; after: <code>{{.After}}</code>. A change counts when beyond noise ({{printf "%.0f" (pct .Confidence)}}% confidence) and the {{printf "%.0f" .ThresholdPct}}% threshold.</p>
{{range .Notes}}<p>{{.}}</p>{{end}}
<table id="compare"><tr><th>phase</th><th>operation</th><th>figure</th><th>before</th><th>after</th><th>change</th><th>verdict</th><th>test</th></tr>
{{range $p := .Phases}}{{range $o := .Ops}}{{range .Figures}}<tr class="fig" data-verdict="{{.Verdict}}"><td>{{$p.Name}}</td><td>{{$o.Op}}</td><td>{{.Name}}</td>
<td class="n">{{byUnit .Unit .Before}}</td><td class="n">{{byUnit .Unit .After}}</td><td class="n">{{printf "%+.1f%%" .RelPct}}</td><td class="{{.Verdict}}">{{.Verdict}}</td><td>{{.Method}}</td></tr>
{{end}}{{end}}{{end}}</table>
{{if .OnlyBefore}}<p>Only before: {{range .OnlyBefore}}{{.}} {{end}}</p>{{end}}{{if .OnlyAfter}}<p>Only after: {{range .OnlyAfter}}{{.}} {{end}}</p>{{end}}
{{end}}</body></html>{{end}}

{{define "trend"}}{{template "head" .}}
<form method="get" action="/trend"><p><label>Figure (PHASE/OP/NAME): <input type="text" name="figure" value="{{.Figure}}" placeholder="seq-read/read/bw"></label></p>
<p><label>Runs (query terms): <input type="text" name="q" value="{{.Q}}"></label> <label>grouped by label: <input type="text" name="by" value="{{.By}}" style="width:8em"></label></p><button>Show</button></form>
{{if .Chart}}<div id="chart">{{.Chart}}</div>{{else if .Figure}}{{if not .Error}}<p id="nodata">No matching run measured {{.Figure}}.</p>{{end}}{{end}}
{{if .Points}}{{$f := .Figure}}<table id="points"><tr><th>started (UTC)</th><th>run</th><th>group</th><th>phase/op</th><th>value</th></tr>
{{range .Points}}<tr class="pt" data-run="{{.RunID}}"><td>{{when .StartedAt}}</td><td>{{.RunID}}</td><td>{{.Group}}</td><td>{{.Phase}}/{{.Op}}</td><td class="n">{{byUnit (unitOf $.Name) .Value}}</td></tr>
{{end}}</table>{{end}}</body></html>{{end}}
`
