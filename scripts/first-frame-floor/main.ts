/**
 * The floor of the app's first frame under React (npm run bench): react-dom renders the markup
 * the app's first render made, as one element, with the app's stylesheet. The bench writes both
 * into the built page: the markup in <template id="first-frame">, a <link> to the stylesheet.
 */
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

const frame = document.getElementById('first-frame') as HTMLTemplateElement;
createRoot(document.getElementById('root')!).render(
  // biome-ignore lint/security/noDangerouslySetInnerHtml: the floor renders the app's own first-frame markup, written into the built page by the bench
  createElement('div', { style: { display: 'contents' }, dangerouslySetInnerHTML: { __html: frame.innerHTML } }),
);
