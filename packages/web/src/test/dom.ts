/**
 * Finds a button by its visible text. Role queries over antd's large DOM are slow in jsdom
 * (seconds per call), which made table tests crawl; text matching is instant.
 */
export function button(container: ParentNode, text: string): HTMLButtonElement {
  const found = Array.from(container.querySelectorAll<HTMLButtonElement>('button')).filter(
    (candidate) => candidate.textContent?.trim() === text,
  );
  if (found.length === 0) throw new Error(`no button "${text}"`);
  return found[found.length - 1];
}

export function buttons(container: ParentNode): HTMLButtonElement[] {
  return Array.from(container.querySelectorAll<HTMLButtonElement>('button'));
}

/** The open popconfirm / popover layer. */
export function popover(): HTMLElement {
  const layers = document.querySelectorAll<HTMLElement>('.ant-popover:not(.ant-popover-hidden)');
  if (layers.length === 0) throw new Error('no open popover');
  return layers[layers.length - 1];
}
