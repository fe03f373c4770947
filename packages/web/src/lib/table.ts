/**
 * Horizontal scroll of the list tables. `max-content` laid every cell out on one line, so at 1366 px
 * (1068 px of table beside the side nav) the log lost Completion, Cost and Details past the edge, and
 * browsers with overlay scroll bars showed no sign that more was there. A width below that box lets
 * cells wrap (tag stacks, dates, actions) so each list fits at 1366; narrower windows still scroll.
 */
export const LIST_TABLE_SCROLL = { x: 960 } as const;
