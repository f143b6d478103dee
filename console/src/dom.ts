/** A small element builder: the console's pages are plain DOM, built with `h`. */

export type Child = Node | string | number | null | undefined | false;
export type Props = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value as EventListener);
    else if (name === 'class') element.className = String(value);
    else if (name in element && name !== 'list' && name !== 'form') (element as unknown as Record<string, unknown>)[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces every child of `parent`. */
export function fill(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/** A labelled form field: the label wraps the control, so a click on the text focuses it. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('small', { class: 'hint' }, hint) : null);
}

/** Calls `run` once calls stop for `ms` milliseconds. */
export function debounce<A extends unknown[]>(run: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => run(...args), ms);
  };
}

/** Copies text to the clipboard; the selection fallback covers browsers that refuse the API. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h('textarea', { value: text, readOnly: true, class: 'offscreen' });
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    if (!copied) throw new Error('The browser refused to copy');
  }
}

/** A button that copies `text()` and says so for a moment. */
export function copyButton(text: () => string, label = 'Copy'): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'secondary small' }, label);
  button.addEventListener('click', async () => {
    try {
      await copyText(text());
      button.textContent = 'Copied';
    } catch (error) {
      button.textContent = (error as Error).message;
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

/** A message line for a page or form: `show` an error or notice, `clear` it. */
export function messageLine(): { element: HTMLElement; error(text: string): void; notice(text: string): void; clear(): void } {
  const element = h('p', { class: 'message', role: 'status', hidden: true });
  const show = (kind: string, text: string) => {
    element.className = `message ${kind}`;
    element.textContent = text;
    element.hidden = false;
  };
  return {
    element,
    error: (text) => show('error', text),
    notice: (text) => show('notice', text),
    clear: () => {
      element.hidden = true;
      element.textContent = '';
    },
  };
}
