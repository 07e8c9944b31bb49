//! Zed starts `cairn serve` from the user's PATH (or `lsp.cairn.binary` in settings).
use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

struct Cairn;

impl zed::Extension for Cairn {
    fn new() -> Self {
        Cairn
    }

    fn language_server_command(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(id.as_ref(), worktree)
            .ok()
            .and_then(|s| s.binary);
        let path = binary
            .as_ref()
            .and_then(|b| b.path.clone())
            .or_else(|| worktree.which("cairn"))
            .ok_or("cairn is not on PATH: `pip install \"git+$CAIRN_GIT\"` (see Cairn's README, Install), or set lsp.cairn.binary.path")?;
        let args = binary
            .and_then(|b| b.arguments)
            .unwrap_or_else(|| vec!["serve".to_string()]);
        Ok(zed::Command { command: path, args, env: worktree.shell_env() })
    }
}

zed::register_extension!(Cairn);
