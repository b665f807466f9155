import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Info } from './api';

export const InfoContext = createContext<Info | null>(null);

export function useInfo(): Info | null {
  return useContext(InfoContext);
}

/** Whether this server serves an operation (read-only hides check writes). */
export function useCan(op: string): boolean {
  const i = useInfo();
  return !!i && i.operations.has(op);
}
