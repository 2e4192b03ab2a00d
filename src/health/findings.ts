/** One thing the health page says, with the one-click fixes that exist for it. */
export type Severity = 'ok' | 'info' | 'warning' | 'error';

/** A fix is a command of this extension (or VS Code) with its arguments; the page shows it as a button. */
export interface Fix {
  label: string;
  command: string;
  args?: unknown[];
}

export interface Finding {
  /** Stable key (tests and the notification read it). */
  id: string;
  severity: Severity;
  title: string;
  detail?: string[];
  fixes?: Fix[];
}

export interface HealthSection {
  title: string;
  /** The user's question this section answers. */
  question: string;
  findings: Finding[];
}

export interface HealthReport {
  sections: HealthSection[];
}

export function allFindings(report: HealthReport): Finding[] {
  return report.sections.flatMap((s) => s.findings);
}

/** The findings that need the user (warnings and errors), worst first. */
export function problems(report: HealthReport): Finding[] {
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2, ok: 3 };
  return allFindings(report)
    .filter((f) => f.severity === 'error' || f.severity === 'warning')
    .sort((a, b) => rank[a.severity] - rank[b.severity]);
}
