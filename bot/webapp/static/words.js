// The page's own few words, before the server's texts arrive (and if one is missing).
// Everything about the game itself comes from the server in the user's language.

const WORDS = {
  en: {
    connecting: "Connecting…",
    reconnecting: "Connection lost, reconnecting…",
    no_token: "This page does not know which table to show: open it with the table's button in Telegram.",
    no_table: "There is no such table.",
    no_telegram: "Open this table from Telegram",
    too_many: "This table is open in too many windows",
    stock: "Stock",
    trump: "Trump",
    no_trump: "No trump",
    discard: "Discard",
    table: "On the table",
    empty: "The table is empty.",
    recent: "Recent moves",
    tally: "Tally",
    hand: "Your cards",
    your_turn: "Your move",
    players: "Players",
    spectator: "You are watching",
    you: "you",
    partner: "partner",
    home_screen: "📲 To the home screen",
    invite: "📤 Invite",
  },
  ru: {
    connecting: "Подключение…",
    reconnecting: "Связь прервалась, подключаюсь…",
    no_token: "Страница не знает, какой стол показать: откройте её кнопкой стола в Telegram.",
    no_table: "Такого стола нет.",
    no_telegram: "Откройте стол из Telegram",
    too_many: "Этот стол открыт в слишком многих окнах",
    stock: "Колода",
    trump: "Козырь",
    no_trump: "Без козыря",
    discard: "Отбой",
    table: "На столе",
    empty: "На столе пусто.",
    recent: "Последние ходы",
    tally: "Счёт",
    hand: "Ваши карты",
    your_turn: "Ваш ход",
    players: "Игроки",
    spectator: "Вы смотрите",
    you: "вы",
    partner: "партнёр",
    home_screen: "📲 На главный экран",
    invite: "📤 Позвать",
  },
  uk: {
    connecting: "Підключення…",
    reconnecting: "Зв’язок обірвався, підключаюся…",
    no_token: "Сторінка не знає, який стіл показати: відкрийте її кнопкою столу в Telegram.",
    no_table: "Такого столу немає.",
    no_telegram: "Відкрийте стіл із Telegram",
    too_many: "Цей стіл відкрито в надто багатьох вікнах",
    stock: "Колода",
    trump: "Козир",
    no_trump: "Без козиря",
    discard: "Відбій",
    table: "На столі",
    empty: "На столі порожньо.",
    recent: "Останні ходи",
    tally: "Рахунок",
    hand: "Ваші карти",
    your_turn: "Ваш хід",
    players: "Гравці",
    spectator: "Ви дивитеся",
    you: "ви",
    partner: "партнер",
    home_screen: "📲 На головний екран",
    invite: "📤 Покликати",
  },
};

// as the bot picks a language (bot/base/i18n.py): its own languages as they are, Russian
// for the languages of RUSSIAN_SPOKEN there, English for the rest
const RUSSIAN_SPOKEN = new Set(["ru", "be", "kk", "ky", "tg", "uz"]);

/** Whether the page has words of its own in ``lang`` ("ru", "en", "uk"). */
export function isLang(lang) {
  return typeof lang === "string" && Object.prototype.hasOwnProperty.call(WORDS, lang);
}

/** "ru", "en" or "uk" for a Telegram language_code such as "ru-RU", "uk-UA" or "de". */
export function pickLang(code) {
  const base = String(code ?? "").toLowerCase().split(/[-_]/)[0];
  if (RUSSIAN_SPOKEN.has(base)) return "ru";
  return isLang(base) ? base : "en";
}

/** A word of the page: the server's text of that key if it sent one, else the page's own. */
export function word(lang, key, texts = null) {
  const sent = texts?.[key];
  if (typeof sent === "string" && sent) return sent;
  return (WORDS[lang] ?? WORDS.en)[key] ?? WORDS.en[key] ?? key;
}
