import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { Link } from "react-router";
import { errorMessage } from "../../../components/form";
import { Paperclip, TriangleAlert } from "../../../components/lucide";
import { paths } from "../../../config/paths";
import { downloadFile, formatSize, maxFiles, type StoredFile } from "../../../lib/uploads";
import { useUploadList, type UploadItem, type UploadList } from "./upload-list";

const statusWords = (item: UploadItem) => {
  switch (item.status) {
    case "waiting":
      return "Uploads when the message is created";
    case "uploading":
      return `${formatSize(item.sent)} of ${formatSize(item.size)}`;
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
export function MessageFiles({ list, allowed, sealed, disabled }: {
  list: UploadList;
  /** Whether the plan may include files (Starter: no; the server has the last word). */
  allowed: boolean;
  /** A sealed message: files are refused here until they can be sealed in the browser. */
  sealed: boolean;
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
  const canAdd = !planRefused && !sealed && !disabled && count < maxFiles;

  const add = (files: FileList | null) => {
    if (!files || files.length === 0 || !canAdd) return;
    list.add(Array.from(files));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };
  const download = async (file: StoredFile) => {
    setAlert(undefined);
    try {
      await downloadFile(file);
    } catch (error) {
      setAlert(`${file.name} could not be downloaded: ${errorMessage(error)}`);
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
      ) : sealed ? (
        <small className="files-hint">
          Files cannot go with a sealed message from the web app yet: they would not be sealed with your passphrase. Send
          them with a message that is not sealed.
        </small>
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
      {shownAlert && (
        <p className="files-alert" role="alert">
          {shownAlert}
        </p>
      )}
      {state.items.length > 0 && (
        <ul className="files-list">
          {state.items.map((item) => (
            <FileRow key={item.key} item={item} list={list} onDownload={download} />
          ))}
        </ul>
      )}
      <p className="visually-hidden" aria-live="polite" aria-atomic="true" data-announce>
        {state.announcement}
      </p>
    </section>
  );
}

function FileRow({ item, list, onDownload }: { item: UploadItem; list: UploadList; onDownload: (file: StoredFile) => Promise<void> }) {
  const id = useId();
  const moving = item.status === "uploading" || item.status === "retrying";
  const percent = item.size === 0 ? (item.status === "done" ? 100 : 0) : Math.round((item.sent / item.size) * 100);
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
          {statusWords(item)}
        </small>
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
          max={Math.max(item.size, 1)}
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
