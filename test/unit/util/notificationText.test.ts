import { plainNotificationText } from '../../../src/util/notificationText';

// What a VS Code notification turns into a link (code-server 4.139.1's workbench): `[label](target)`
// with `]` and `(` side by side and a target starting with http://, https://, command: or file:.
const RENDERED_AS_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)\)/i;

describe('plainNotificationText', () => {
  const attacks = [
    'Claude proposes a change to a[Review](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D).js.',
    'x [Open](https://example.com/steal) y',
    '[a](file:///etc/passwd) and [b](command:x)',
    'nested [[x](command:a)](command:b)',
  ];

  test.each(attacks)('no link is left: %s', (text) => {
    expect(RENDERED_AS_LINK.test(text)).toBe(true); // the pattern does catch the raw text
    expect(RENDERED_AS_LINK.test(plainNotificationText(text))).toBe(false);
  });

  test('reads the same: only invisible word joiners are added, between "]" and "("', () => {
    const text = attacks[0];
    expect(plainNotificationText(text).replaceAll('\u2060', '')).toBe(text);
    expect(plainNotificationText('a [b] (c) d](e')).toBe('a [b] (c) d]\u2060(e');
  });

  test('text without links is unchanged', () => {
    for (const text of ["Undid Claude's change to src/a.ts.", 'f(x) [1] ()', '']) expect(plainNotificationText(text)).toBe(text);
  });
});
