import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { NumberCell } from './channel-cells';

const input = () => screen.getByLabelText<HTMLInputElement>('priority');

describe('NumberCell', () => {
  it('follows a new value from the server, replacing what was being typed', () => {
    const onCommit = vi.fn();
    const { rerender } = render(<NumberCell value={5} min={0} label="priority" onCommit={onCommit} />);
    expect(input().value).toBe('5');
    fireEvent.change(input(), { target: { value: '8' } });
    expect(input().value).toBe('8');

    rerender(<NumberCell value={7} min={0} label="priority" onCommit={onCommit} />);
    expect(input().value).toBe('7');
    fireEvent.blur(input());
    expect(onCommit).not.toHaveBeenCalled();
  });

  it('commits a changed value on Enter, clamped to the minimum', () => {
    const onCommit = vi.fn();
    render(<NumberCell value={5} min={1} label="priority" onCommit={onCommit} />);
    fireEvent.change(input(), { target: { value: '-3' } });
    fireEvent.keyDown(input(), { key: 'Enter', keyCode: 13 });
    expect(onCommit).toHaveBeenCalledWith(1);
  });
});
