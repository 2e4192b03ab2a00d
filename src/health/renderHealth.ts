import type { Finding, HealthReport, Severity } from './findings';

const ICON: Record<Severity, string> = { ok: '✔', info: 'ℹ', warning: '⚠', error: '✖' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A `command:` link, the only way a webview with `enableCommandUris` runs a command on click. */
function commandUri(command: string, args?: unknown[]): string {
  return `command:${command}${args ? `?${encodeURIComponent(JSON.stringify(args))}` : ''}`;
}

function renderFinding(finding: Finding): string {
  const detail = (finding.detail ?? []).map((line) => `<div class="detail">${escapeHtml(line)}</div>`).join('');
  const fixes = (finding.fixes ?? []).map((f) => `<a class="fix" href="${escapeHtml(commandUri(f.command, f.args))}">${escapeHtml(f.label)}</a>`).join(' ');
  return (
    `<li class="finding ${finding.severity}" data-id="${escapeHtml(finding.id)}">` +
    `<span class="icon" aria-label="${finding.severity}">${ICON[finding.severity]}</span>` +
    `<div class="body"><div class="title">${escapeHtml(finding.title)}</div>${detail}${fixes ? `<div class="fixes">${fixes}</div>` : ''}</div></li>`
  );
}

/**
 * The health page as one self-contained HTML document (no scripts: every button is a command link the
 * webview runs itself).
 */
export function renderHealthHtml(report: HealthReport, options: { refreshCommand: string; generatedAt: Date }): string {
  const sections = report.sections
    .map(
      (s) =>
        `<section><h2>${escapeHtml(s.title)}</h2><p class="question">${escapeHtml(s.question)}</p><ul>${s.findings.map(renderFinding).join('')}</ul></section>`,
    )
    .join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<title>Claude: Check Setup</title>
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 1.5em 2em; max-width: 60em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin: 1.4em 0 0.2em; border-bottom: 1px solid var(--vscode-panel-border); }
.question { color: var(--vscode-descriptionForeground); margin: 0 0 0.6em; font-style: italic; }
ul { list-style: none; padding: 0; margin: 0; } .finding { display: flex; gap: 0.6em; padding: 0.35em 0; }
.icon { width: 1.2em; text-align: center; } .ok .icon { color: var(--vscode-testing-iconPassed, green); }
.warning .icon { color: var(--vscode-editorWarning-foreground, orange); } .error .icon { color: var(--vscode-editorError-foreground, red); }
.info .icon { color: var(--vscode-editorInfo-foreground, steelblue); }
.title { font-weight: 600; } .detail { color: var(--vscode-descriptionForeground); overflow-wrap: anywhere; }
.fixes { margin-top: 0.3em; } .fix { display: inline-block; padding: 0.15em 0.7em; margin-right: 0.4em; border-radius: 2px; text-decoration: none;
  background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
.fix:hover { background: var(--vscode-button-hoverBackground); }
.stamp { color: var(--vscode-descriptionForeground); }
</style></head>
<body><h1>Claude: Check Setup</h1>
<p class="stamp">Checked at ${escapeHtml(options.generatedAt.toLocaleTimeString())} · <a href="${escapeHtml(commandUri(options.refreshCommand))}">Check again</a></p>
${sections}
</body></html>`;
}
