/**
 * Text from outside (a file name claude chose, an error's message, a version string a peer sent) made
 * safe for a VS Code notification. A notification renders `[label](command:…)` (and `https://…`,
 * `file:…` targets) as a link, and a click runs that command with the arguments in the link: a file
 * named `a[Review](command:…).js` would put a second "Review" next to ours that runs anything. A word
 * joiner (U+2060, invisible) between `]` and `(` leaves the text as it reads, and never a link.
 * Modal dialogs show their message and detail as plain text and need none of this.
 */
export function plainNotificationText(text: string): string {
  return text.replaceAll('](', ']\u2060(');
}
