import { useMemo } from 'react';
import { classifyContent } from '../lib/content';

interface RichContentProps {
  content: string;
  /** Accessible name of the iframe when the content is a URL. */
  frameTitle: string;
  className?: string;
}

/** Admin content as sanitised Markdown/HTML, or an https URL in a full-size iframe (reference rule). */
export function RichContent({ content, frameTitle, className }: RichContentProps) {
  const parsed = useMemo(() => classifyContent(content), [content]);
  if (parsed.kind === 'empty') return null;
  if (parsed.kind === 'url') {
    return <iframe src={parsed.url} title={frameTitle} className="mg-content-frame" />;
  }
  return <div className={`mg-markdown ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: parsed.html }} />;
}
