import { useEffect, useRef, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";

const focusable =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusableIn(element: HTMLElement) {
  return [...element.querySelectorAll<HTMLElement>(focusable)].filter((el) => !el.closest("[inert]"));
}

/**
 * A modal layer, for the dialogs and the drawer: outside document order (a portal on body) so
 * the app behind it can be inert, focus moves in (to the autofocus element, else the first
 * control), Tab and Shift+Tab cycle inside, Escape asks to close, and closing gives focus back
 * to where it was. `onClose` is left out while closing is not allowed (a save in flight).
 */
export function Modal({
  labelledBy,
  label,
  className,
  onClose,
  children,
}: {
  labelledBy?: string;
  label?: string;
  className?: string;
  onClose?: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  // Read on the first render: a child's autoFocus moves focus before effects run.
  const [before] = useState(() => document.activeElement as HTMLElement | null);

  useEffect(() => {
    close.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current!;
    // Everything else on the page (the app's root) is inert while the modal is open.
    const behind = [...document.body.children].filter((el) => el !== dialog && !el.hasAttribute("inert"));
    for (const el of behind) el.setAttribute("inert", "");
    document.documentElement.classList.add("modal-is-open");
    if (!dialog.contains(document.activeElement)) (focusableIn(dialog)[0] ?? dialog).focus();

    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        close.current?.();
        return;
      }
      if (event.key !== "Tab") return;
      const items = focusableIn(dialog);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) {
        event.preventDefault();
        return;
      }
      const inside = dialog.contains(document.activeElement);
      if (event.shiftKey && (document.activeElement === first || !inside)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      for (const el of behind) el.removeAttribute("inert");
      document.documentElement.classList.remove("modal-is-open");
      before?.focus();
    };
  }, [before]);

  return createPortal(
    <dialog
      ref={ref}
      open
      aria-modal="true"
      aria-labelledby={labelledBy}
      aria-label={label}
      className={className}
      tabIndex={-1}
      onClick={(event) => event.target === event.currentTarget && close.current?.()}
    >
      {children}
    </dialog>,
    document.body,
  );
}
