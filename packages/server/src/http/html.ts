/** Text made safe to place in HTML (element content or a quoted attribute): mails and the server's own small pages. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
