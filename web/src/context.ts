import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Info } from './api';

export const InfoContext = createContext<Info | null>(null);

/** Counts the reloads the user accepted after the artifacts changed; screens refetch when it moves. */
export const ReloadContext = createContext(0);

export function useReloadKey(): number {
  return useContext(ReloadContext);
}

export function useInfo(): Info | null {
  return useContext(InfoContext);
}

/** Whether this server serves an operation (read-only hides check writes). */
export function useCan(op: string): boolean {
  const i = useInfo();
  return !!i && i.operations.has(op);
}
