import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { Link } from "react-router";
import { errorMessage } from "../../../components/form";
import { Lock, Paperclip, TriangleAlert } from "../../../components/lucide";
import { paths } from "../../../config/paths";
import { SealedError } from "../../../lib/sealed";
import { FileKeys, openFile } from "../../../lib/sealed-file";
import { downloadFile, formatDownloads, formatSize, maxFiles, type StoredFile } from "../../../lib/uploads";
import { useUploadList, type UploadItem, type UploadList } from "./upload-list";

/** The share of the bytes to send that went, in percent (a sealed file sends its sealed bytes). */
const percentOf = (item: UploadItem) => {
  const total = item.total ?? item.size;
  return total === 0 ? (item.status === "done" ? 100 : 0) : Math.round((item.sent / total) * 100);
};

const statusWords = (item: UploadItem, stored: boolean) => {
  switch (item.status) {
    case "waiting":
      return stored ? "Uploads when the message is saved" : "Uploads when the message is created";
    case "sealing":
      return "Sealing…";
    case "uploading":
      return `${formatSize(Math.round((item.size * percentOf(item)) / 100))} of ${formatSize(item.size)}`;
    case "retrying":
      return "Connection lost: trying again…";
    case "failed":
      return item.error ?? "Upload failed";
    case "removing":
      return "Removing…";
    case "done":
      return formatSize(item.size);
  }
};

/**
 * The files of a message in its dialog: the picker (a button, or files dropped on it), each
 * file with its name, size, progress and actions. On Starter, the upgrade hint instead.
 */
export function MessageFiles({ list, allowed, sealed, locked, delivered, disabled }: {
  list: UploadList;
  /** Whether the plan may include files (Starter: no; the server has the last word). */
  allowed: boolean;
  /** A sealed message (or one being sealed): its files are sealed with the passphrase before they go. */
  sealed: boolean;
  /** A sealed message whose letter is not opened here: no passphrase to seal new files with. */
  locked?: boolean;
  /** The message went to a recipient: each stored file says how often it was downloaded. */
  delivered?: boolean;
  disabled?: boolean;
}) {
  const state = useUploadList(list);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const [dragging, setDragging] = useState(false);
  const section = useRef<HTMLElement>(null);
  // Opened with uploads on their way (the dialog of a message just created): they show.
  useEffect(() => {
    if (list.pending) section.current?.scrollIntoView?.({ block: "nearest" });
  }, [list]);
  const [alert, setAlert] = useState<string>();
  const count = state.items.filter((i) => i.status !== "removing").length;
  const planRefused = !allowed || state.planRefused;
  const canAdd = !planRefused && !locked && !disabled && count < maxFiles;
  // A sealed file asked for while the dialog holds no passphrase: the passphrase is asked here.
  const [asking, setAsking] = useState<StoredFile>();
  const [askedKeys, setAskedKeys] = useState<FileKeys>();

  const add = (files: FileList | null) => {
    if (!files || files.length === 0 || !canAdd) return;
    list.add(Array.from(files));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };
  const download = async (file: StoredFile, keys = list.keys ?? askedKeys) => {
    setAlert(undefined);
    if (file.clientSealed && keys === undefined) {
      setAsking(file);
      return;
    }
    try {
      await downloadFile(file, file.clientSealed && keys ? (stored) => openFile(keys, file.messageId, stored) : undefined);
      if (keys !== list.keys) setAskedKeys(keys);
      setAsking(undefined);
    } catch (error) {
      if (error instanceof SealedError) {
        setAlert(
          error.kind === "wrong-passphrase"
            ? `${file.name} does not open with this passphrase: it was sealed with another, or it is damaged.`
            : `${file.name} is not a sealed file this version of Sendlater can open.`,
        );
        if (keys === askedKeys) setAskedKeys(undefined);
      } else setAlert(`${file.name} could not be downloaded: ${errorMessage(error)}`);
    }
  };
  const shownAlert = alert ?? state.alert;
  if (state.unavailable) return null;

  return (
    <section
      ref={section}
      className={dragging ? "message-files dragging" : "message-files"}
      aria-labelledby={`${id}-title`}
      onDragOver={(event) => {
        if (!canAdd) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <h3 id={`${id}-title`}>
        <Paperclip size={18} aria-hidden="true" className="title-icon" /> Files
      </h3>
      {planRefused ? (
        <small className="files-hint">
          Files (a scanned will, photos, a key file) go with messages on the Pro and Business plans.{" "}
          <Link to={paths.pricing.href()}>See the plans</Link>
        </small>
      ) : locked ? (
        <small className="files-hint">Open the letter with its passphrase to attach files: they are sealed with it.</small>
      ) : (
        <div className="files-picker">
          <input
            ref={input}
            id={`${id}-input`}
            type="file"
            multiple
            hidden
            onChange={(event) => {
              add(event.currentTarget.files);
              event.currentTarget.value = "";
            }}
          />
          <button type="button" className="secondary outline" onClick={() => input.current?.click()} disabled={!canAdd} aria-describedby={`${id}-note`}>
            Attach files
          </button>
          <small id={`${id}-note`}>
            {count >= maxFiles ? `A message holds up to ${maxFiles} files.` : `Or drop them here. Up to ${maxFiles} files, stored sealed.`}
          </small>
        </div>
      )}
      {sealed && !planRefused && (
        <small className="files-hint files-sealed">
          <Lock size={14} aria-hidden="true" className="title-icon" /> Files are sealed with the passphrase; their names stay readable, like the
          title.
        </small>
      )}
      {asking && <AskPassphrase file={asking} onOpen={(keys) => download(asking, keys)} onCancel={() => setAsking(undefined)} />}
      {shownAlert && (
        <p className="files-alert" role="alert">
          {shownAlert}
        </p>
      )}
      {state.items.length > 0 && (
        <ul className="files-list">
          {state.items.map((item) => (
            <FileRow key={item.key} item={item} list={list} onDownload={download} stored={list.messageId !== undefined} delivered={delivered} />
          ))}
        </ul>
      )}
      <p className="visually-hidden" aria-live="polite" aria-atomic="true" data-announce>
        {state.announcement}
      </p>
    </section>
  );
}

/** The passphrase of a sealed message's files, asked when the dialog holds none (the letter not opened). */
function AskPassphrase({ file, onOpen, onCancel }: { file: StoredFile; onOpen: (keys: FileKeys) => Promise<void>; onCancel: () => void }) {
  const id = useId();
  const [passphrase, setPassphrase] = useState("");
  const [busy, setBusy] = useState(false);
  const open = async () => {
    if (passphrase === "") return;
    setBusy(true);
    await onOpen(new FileKeys(passphrase));
    setBusy(false);
  };
  return (
    <div className="files-unlock" role="group" aria-labelledby={`${id}-label`}>
      <label id={`${id}-label`} htmlFor={id}>
        Passphrase to open {file.name}
      </label>
      <input
        id={id}
        type="password"
        autoComplete="off"
        value={passphrase}
        onChange={(e) => setPassphrase(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            void open();
          }
        }}
      />
      <span className="file-actions">
        <button type="button" className="secondary" onClick={() => void open()} disabled={busy || passphrase === ""} aria-busy={busy}>
          Open and download
        </button>
        <button type="button" className="secondary outline" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </div>
  );
}

function FileRow({ item, list, onDownload, stored, delivered }: {
  item: UploadItem;
  list: UploadList;
  onDownload: (file: StoredFile) => Promise<void>;
  /** The message is stored: a waiting file waits for a save, not the creation. */
  stored: boolean;
  /** The message went to a recipient: a stored file says its downloads. */
  delivered?: boolean;
}) {
  const id = useId();
  const moving = item.status === "sealing" || item.status === "uploading" || item.status === "retrying";
  const percent = percentOf(item);
  return (
    <li className={`file-row file-${item.status}`}>
      <div className="file-head">
        <span className="file-name" id={`${id}-name`}>
          {item.status === "done" && item.file ? (
            <button type="button" className="link-button" onClick={() => void onDownload(item.file!)} aria-label={`Download ${item.name}`}>
              {item.name}
            </button>
          ) : (
            item.name
          )}
        </span>
        {item.file?.executable && (
          <span className="file-executable" title="A program or a script: open it only if you trust it">
            <TriangleAlert size={14} aria-hidden="true" className="title-icon" /> Program
          </span>
        )}
        <small className="file-status" id={`${id}-status`}>
          {statusWords(item, stored)}
        </small>
        {delivered && item.status === "done" && item.file && <small className="file-status file-downloads">{formatDownloads(item.file.downloads)}</small>}
        <span className="file-actions">
          {item.status === "failed" && item.blob && (
            <button type="button" className="secondary outline" onClick={() => list.retry(item.key)} aria-label={`Retry ${item.name}`}>
              Retry
            </button>
          )}
          {item.status !== "removing" && (
            <button
              type="button"
              className="secondary outline"
              onClick={() => void list.remove(item.key)}
              aria-label={`${moving || item.status === "waiting" ? "Cancel" : "Remove"} ${item.name}`}
            >
              {moving || item.status === "waiting" ? "Cancel" : "Remove"}
            </button>
          )}
        </span>
      </div>
      {(moving || item.status === "failed") && item.blob && (
        <progress
          value={item.sent}
          max={Math.max(item.total ?? item.size, 1)}
          aria-labelledby={`${id}-name`}
          aria-valuenow={percent}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuetext={`${percent}%`}
          aria-describedby={`${id}-status`}
        />
      )}
    </li>
  );
}
