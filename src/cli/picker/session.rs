//! One session of the picker on the terminal: the alternate screen in raw mode, keys read
//! until a task is chosen or the picker is left, and the terminal restored on every way out.
//!
//! In raw mode Ctrl-C is a key, not a signal. SIGTERM and SIGHUP sent to agg are noted by a
//! flag (signal-hook) and seen within [`TICK`], so the terminal is restored before agg
//! ends with 128+signal; once the picker is closed they act as they normally do again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use signal_hook::SigId;
use signal_hook::consts::{SIGHUP, SIGTERM};

use super::screen::Picker;
use crate::error::Error;

/// How often the picker looks at the signal flags while no key comes.
const TICK: Duration = Duration::from_millis(100);

/// How a session ended.
pub(super) enum Outcome {
    /// A task was chosen (its index in the table).
    Chosen(usize),
    /// Esc or Ctrl-C: nothing runs.
    Left,
    /// SIGTERM or SIGHUP arrived (its number).
    Signal(i32),
}

/// Runs a session and returns how it ended, the terminal restored. The returned
/// [`Signals`] keep SIGTERM and SIGHUP at their usual effect until dropped.
pub(super) fn pick(picker: &mut Picker) -> Result<(Outcome, Signals), Error> {
    let signals = Signals::watch().map_err(Error::Terminal)?;
    let outcome = {
        let mut screen = Screen::enter().map_err(Error::Terminal)?;
        keys(&mut screen.terminal, picker, &signals)
    };
    // A signal that came while the terminal was being restored still counts.
    let outcome = match (outcome, signals.received()) {
        (Ok(Outcome::Signal(n)), _) | (_, Some(n)) => Ok(Outcome::Signal(n)),
        (other, None) => other,
    };
    signals.release();
    outcome.map(|o| (o, signals))
}

/// Reads keys until a task is chosen or the picker is left.
fn keys(
    terminal: &mut DefaultTerminal,
    picker: &mut Picker,
    signals: &Signals,
) -> Result<Outcome, Error> {
    loop {
        if let Some(n) = signals.received() {
            return Ok(Outcome::Signal(n));
        }
        terminal
            .draw(|frame| picker.draw(frame))
            .map_err(Error::Terminal)?;
        if !event::poll(TICK).map_err(Error::Terminal)? {
            continue;
        }
        match event::read().map_err(Error::Terminal)? {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                if let Some(outcome) = on_key(picker, key) {
                    return Ok(outcome);
                }
            }
            // The next draw fits the new size; text pasted is typed.
            Event::Paste(text) => {
                picker
                    .query
                    .extend(text.chars().filter(|c| !c.is_control()));
                picker.requery();
            }
            _ => {}
        }
    }
}

/// What a key does: edit the query, move, choose, leave.
fn on_key(picker: &mut Picker, key: KeyEvent) -> Option<Outcome> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let page = isize::try_from(picker.page).unwrap_or(10);
    match key.code {
        KeyCode::Esc => return Some(Outcome::Left),
        KeyCode::Char('c' | 'd' | 'g') if ctrl => return Some(Outcome::Left),
        KeyCode::Enter => return picker.chosen().map(Outcome::Chosen),
        KeyCode::Up | KeyCode::BackTab => picker.step(-1),
        KeyCode::Char('p' | 'k') if ctrl => picker.step(-1),
        KeyCode::Down | KeyCode::Tab => picker.step(1),
        KeyCode::Char('n' | 'j') if ctrl => picker.step(1),
        KeyCode::PageUp => picker.step(-page),
        KeyCode::PageDown => picker.step(page),
        KeyCode::Home => picker.step(isize::MIN),
        KeyCode::End => picker.step(isize::MAX),
        KeyCode::Char('u') if ctrl => {
            picker.query.clear();
            picker.requery();
        }
        KeyCode::Char('w') if ctrl => {
            let kept = picker.query.trim_end().rfind(' ').map_or(0, |i| i + 1);
            picker.query.truncate(kept);
            picker.requery();
        }
        KeyCode::Backspace => {
            picker.query.pop();
            picker.requery();
        }
        KeyCode::Char(c) if !ctrl && !c.is_control() => {
            picker.query.push(c);
            picker.requery();
        }
        _ => {}
    }
    None
}

/// The terminal in the picker's state; restored when dropped.
struct Screen {
    terminal: DefaultTerminal,
}

impl Screen {
    fn enter() -> std::io::Result<Screen> {
        match ratatui::try_init() {
            Ok(terminal) => Ok(Screen { terminal }),
            Err(err) => {
                // Raw mode may be on already.
                let _ = ratatui::try_restore();
                Err(err)
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = ratatui::try_restore();
    }
}

/// SIGTERM and SIGHUP while the picker is open: noted, not fatal; after
/// [`Signals::release`], fatal as usual until dropped, when `agg run`'s own handling takes over.
pub(super) struct Signals {
    received: Arc<AtomicUsize>,
    /// Whether the signals act as usual again.
    usual: Arc<AtomicBool>,
    ids: Vec<SigId>,
}

impl Signals {
    fn watch() -> std::io::Result<Signals> {
        let received = Arc::new(AtomicUsize::new(0));
        let usual = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for sig in [SIGTERM, SIGHUP] {
            let number = usize::try_from(sig).unwrap_or(0);
            ids.push(signal_hook::flag::register_usize(
                sig,
                Arc::clone(&received),
                number,
            )?);
            // Does nothing until released: then the signal ends agg as it would have.
            ids.push(signal_hook::flag::register_conditional_default(
                sig,
                Arc::clone(&usual),
            )?);
        }
        Ok(Signals {
            received,
            usual,
            ids,
        })
    }

    /// The signal that arrived, if any.
    fn received(&self) -> Option<i32> {
        match self.received.load(Ordering::SeqCst) {
            0 => None,
            n => i32::try_from(n).ok(),
        }
    }

    /// From now on SIGTERM and SIGHUP end agg, as they do outside the picker.
    fn release(&self) {
        self.usual.store(true, Ordering::SeqCst);
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
