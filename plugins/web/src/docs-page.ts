import { createHash } from 'node:crypto';
import type { OpenApiDocument } from './openapi.ts';

/** The page's only style, inline; the CSP allows exactly this text by its hash. */
const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f5;padding:.6rem;overflow:auto}
section{border-top:1px solid #ddd;padding:.5rem 0}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}
.m{display:inline-block;min-width:4.5rem;font-weight:bold}.get{color:#0a6}.post{color:#06c}.delete{color:#c30}
`;

/**
 * The Content-Security-Policy of the docs page: no scripts, nothing loaded, only its own
 * inline style (by hash), never framed.
 */
export function docsContentSecurityPolicy(): string {
  const hash = createHash('sha256').update(STYLE).digest('base64');
  return `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

const escape = (s: unknown) => String(s).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/**
 * A self-contained HTML page (no script, no CDN) listing every operation of the OpenAPI
 * document: method, path, summary, parameters, request body schema and responses.
 */
export function renderDocs(doc: OpenApiDocument): string {
  const ops: string[] = [];
  const toc: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const anchor = escape(op.operationId);
      toc.push(`<li><a href="#${anchor}"><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> ${escape(path)}</a></li>`);
      const params = (op.parameters ?? []) as { name: string; in: string; required: boolean; description?: string; schema: unknown }[];
      const rows = params.map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td>`
        + `<td>${escape(p.description ?? '')} <code>${escape(JSON.stringify(p.schema))}</code></td></tr>`).join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses as Record<string, any>).map(([status, r]) => {
        const [type, media] = Object.entries(r.content ?? {})[0] ?? [];
        const schema = (media as { schema?: unknown } | undefined)?.schema;
        return `<li><b>${escape(status)}</b> ${escape(r.description)}${type ? ` <i>${escape(type)}</i>` : ''}`
          + `${schema ? `<details><summary>schema</summary><pre>${escape(JSON.stringify(schema, null, 2))}</pre></details>` : ''}</li>`;
      }).join('');
      ops.push(`<section id="${anchor}">
<h2><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code>${op.security?.length === 0 ? ' <small>(no auth)</small>' : ''}</h2>
<p>${escape(op.summary)}</p>${op.description ? `<p>${escape(op.description)}</p>` : ''}
${rows ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${rows}</table>` : ''}
${body ? `<h3>Request body</h3><pre>${escape(JSON.stringify(body, null, 2))}</pre>` : ''}
<h3>Responses</h3><ul>${responses}</ul>
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} ${escape(doc.info.version)}</title>
<style>${STYLE}</style></head><body>
<h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${escape(doc.info.description ?? '')} The machine-readable document is at <a href="openapi.json">/openapi.json</a>.</p>
<ul>${toc.join('\n')}</ul>
${ops.join('\n')}
</body></html>`;
}
