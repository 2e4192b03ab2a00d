/** Reading VS Code's walkthrough page (the Welcome editor) from the workbench DOM, for the real tests and `npm run screenshots`. */
import type { Page } from 'playwright-core';

/** The walkthrough page as the workbench renders it: its title, and each step's id, title and checkmark. */
export async function walkthroughPage(page: Page): Promise<{ title: string; steps: Array<{ id: string; title: string; checked: boolean }> }> {
  return page.evaluate<{ title: string; steps: Array<{ id: string; title: string; checked: boolean }> }>(`(() => {
    const details = document.querySelector('.gettingStartedSlideDetails') || document;
    const title = details.querySelector('.category-title');
    return {
      title: title ? (title.textContent || '').trim() : '',
      steps: Array.from(details.querySelectorAll('button.getting-started-step')).map((b) => ({
        id: b.getAttribute('data-step-id') || '',
        title: ((b.querySelector('.step-title') || {}).textContent || '').trim(),
        checked: b.getAttribute('aria-checked') === 'true',
      })),
    };
  })()`);
}
