;;; cairn.el --- Cairn decision memory through eglot -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages

;;; Commentary:

;; Registers `cairn serve' with eglot and adds commands that prompt for the reasoning
;; before a decision is logged.  Eglot runs one server per buffer, so the default only
;; claims SQL buffers (migrations, where re-added columns bite); add the modes of your
;; choice to `cairn-major-modes' if Cairn should be their server.
;;
;;   (add-to-list 'load-path "/path/to/cairn/editors/emacs")
;;   (require 'cairn)
;;   (cairn-eglot-setup)
;;   (add-hook 'sql-mode-hook #'eglot-ensure)

;;; Code:

(require 'eglot)
(require 'seq)
(require 'subr-x)

(defgroup cairn nil
  "Decision memory in the editor."
  :group 'tools)

(defcustom cairn-command '("cairn" "serve")
  "Command line that starts the Cairn language server."
  :type '(repeat string))

(defcustom cairn-major-modes '(sql-mode)
  "Major modes whose buffers eglot should connect to Cairn."
  :type '(repeat symbol))

(defconst cairn-log-types
  '("add" "modify" "remove" "create" "rename" "retype" "migrate" "delete"
    "index_add" "index_remove")
  "Event types `cairn-log' offers.")

;;;###autoload
(defun cairn-eglot-setup ()
  "Make eglot start Cairn for `cairn-major-modes'."
  (setq eglot-server-programs
        (cons (cons cairn-major-modes cairn-command)
              (seq-remove (lambda (entry) (equal (car entry) cairn-major-modes))
                          eglot-server-programs))))

(defun cairn--execute (command args)
  "Send COMMAND with the single plist argument ARGS to the Cairn server."
  (let ((server (eglot--current-server-or-lose)))
    (jsonrpc-request server :workspace/executeCommand
                     `(:command ,command :arguments ,(vector args)))
    (message "cairn: %s recorded for %s" command (plist-get args :entity))))

(defun cairn--reason (prompt)
  "Read a reason with PROMPT; an empty answer makes the server open a draft."
  (let ((reason (read-string prompt)))
    (if (string-empty-p reason) nil reason)))

(defun cairn--args (&rest plist)
  "PLIST without its nil values."
  (let (out)
    (while plist
      (when (cadr plist)
        (setq out (append out (list (car plist) (cadr plist)))))
      (setq plist (cddr plist)))
    out))

;;;###autoload
(defun cairn-log (entity type reason)
  "Log a decision of TYPE about ENTITY with REASON."
  (interactive (list (read-string "Entity: " (thing-at-point 'symbol t))
                     (completing-read "Decision type: " cairn-log-types nil t)
                     (cairn--reason "Why? (empty: open a draft) ")))
  (cairn--execute "cairn.log" (cairn--args :entity entity :type type :reason reason)))

;;;###autoload
(defun cairn-reject (entity alternative reason)
  "Record that ALTERNATIVE was rejected for ENTITY, because of REASON."
  (interactive (list (read-string "Entity: " (thing-at-point 'symbol t))
                     (read-string "Rejected alternative: ")
                     (cairn--reason "Why was it rejected? (empty: open a draft) ")))
  (cairn--execute "cairn.reject"
                  (cairn--args :entity entity :alternative alternative :reason reason)))

;;;###autoload
(defun cairn-supersede (entity reason)
  "Re-open the open verdicts on ENTITY, because of REASON."
  (interactive (list (read-string "Entity: " (thing-at-point 'symbol t))
                     (cairn--reason "Why re-open it? (empty: open a draft) ")))
  (cairn--execute "cairn.supersede" (cairn--args :entity entity :reason reason)))

(provide 'cairn)
;;; cairn.el ends here
