/// The page's style sheet, inline so the file stands alone.
enum PageStyle {
    static let css = """
        body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em 2em; color: #1d1d1f; background: #fafafa; }
        h1 { font-size: 1.5em; margin: 0 0 .4em; }
        section.report { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .6em 1em 1em; margin: 1.2em 0; }
        section.group { margin: 1.6em 0; } p.group-head { margin: 0 0 -.6em; font-size: .95em; }
        p.group-head .n { font-weight: bold; } p.group-head .sig { font-family: ui-monospace, monospace; color: #444; }
        details.repeats, details.rest { margin: .4em 0; }
        section.report h2 { font-size: 1.1em; margin: .2em 0; }
        h2 .num { color: #888; font-weight: normal; } h2 .pid, h2 .time, p.file { color: #666; font-weight: normal; font-size: .9em; }
        h2 .kind { color: #a11; }
        p.file { margin: 0 0 .4em; word-break: break-all; }
        h3 { font-size: 1em; margin: 1em 0 .3em; } h4 { font-size: .95em; margin: .8em 0 .2em; }
        ul.headline { margin: .3em 0; padding-left: 1.2em; } ul.headline li { margin: .1em 0; }
        .scroll { overflow-x: auto; }
        p.caption, p.note { color: #555; margin: .2em 0; font-size: .9em; }
        table.groups { border-collapse: collapse; background: #fff; margin: .5em 0 1em; }
        table.groups td, table.groups th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
        table.groups td.n { text-align: right; font-weight: bold; }
        td.fn, span.fn { font-family: ui-monospace, monospace; }
        .count { white-space: nowrap; }
        pre.frames, pre.repeats, pre.rest { background: none; padding: 0 0 0 .5em; margin: .2em 0; font: 12px/1.5 ui-monospace, monospace; word-break: break-all; }
        pre.frames { color: #555; } pre.frames .fn { font-weight: bold; color: #8a2b00; }
        details > summary { cursor: pointer; color: #245; }
        details.all { margin-left: .5em; font-size: .9em; }
        pre { background: #f3f3f3; padding: .5em; overflow-x: auto; white-space: pre-wrap; }
        svg text { font: 11px ui-monospace, monospace; }
        svg.flame rect { stroke: #fff; stroke-width: .5; }
        svg.flame g.culprit rect { stroke: #600; stroke-width: 1.2; }
        svg.flame g.culprit text { font-weight: bold; }
        svg.waits rect { fill: #e7eefb; stroke: #335; } svg.waits ellipse { fill: #fde8d0; stroke: #844; }
        svg.waits g.gone rect { fill: #eee; stroke-dasharray: 4 3; }
        svg.waits line { stroke: #333; stroke-width: 1.5; } svg.waits g.holds line { stroke-dasharray: 5 3; }
        svg.waits text { font: 12px system-ui, sans-serif; } svg.waits text.detail { fill: #555; font-size: 11px; }
        svg.memory .axis { stroke: #888; fill: none; } svg.memory .tick { fill: #666; }
        svg.memory line.limit { stroke: #c00; stroke-width: 2; stroke-dasharray: 8 4; } svg.memory g.limit text { fill: #c00; }
        svg.memory polyline.usage { fill: none; stroke: #2a5db0; stroke-width: 2; } svg.memory g.usage rect { fill: #2a5db0; }
        svg.memory g.crumb circle { fill: #2a5db0; } svg.memory text.crumb, svg.memory g.crumb text { fill: #2a5db0; }
        svg.memory g.kill line { stroke: #000; stroke-width: 1; stroke-dasharray: 2 2; } svg.memory g.kill path { stroke: #c00; stroke-width: 3; }
        svg.memory g.kill text { fill: #c00; font-weight: bold; }
        svg.strip rect.definitely_lost, .bar.definitely_lost { fill: #c0392b; background: #c0392b; }
        svg.strip rect.indirectly_lost, .bar.indirectly_lost { fill: #e67e22; background: #e67e22; }
        svg.strip rect.still_reachable, .bar.still_reachable { fill: #95a5a6; background: #95a5a6; }
        svg.strip rect.live, .bar.live { fill: #2a5db0; background: #2a5db0; }
        ol.groups { list-style: none; padding: 0; margin: .4em 0; }
        ol.groups li.group { margin: .15em 0; }
        .track { display: inline-block; width: 220px; height: 12px; background: #eee; margin-right: .6em; vertical-align: middle; }
        .bar { display: block; height: 12px; }
        span.gt { font-family: ui-monospace, monospace; font-size: 12px; }
        p.none { color: #888; font-style: italic; }

        """
}
