/**
 * Arabic shaping as MapLibre GL JS does it (src/symbol/arabic_shaping.ts, BSD-3-Clause, with the
 * tables of its src/util/unicode_properties.g.ts, generated from the Unicode Character Database):
 * labels are drawn one glyph per codepoint, so each Arabic letter is rewritten as the Presentation
 * Forms codepoint of the shape it takes in its word (isolated, final, initial or medial), and lam
 * followed by alef as their ligature. Noto Sans Arabic, a fallback font of the catalog, has those
 * codepoints, and the glyph PBFs hand MapLibre the same glyphs.
 */

/** How a character joins its neighbours: both sides, right (the one before), left (the one after), causing, transparent, none. */
type JoiningType = 'D' | 'R' | 'L' | 'C' | 'T' | 'U';

const LAM = 0x0644;

/** Arabic and its supplements, and the presentation forms themselves (text shaped already). */
const ARABIC = /[\u0600-\u06ff\u0750-\u077f\u0870-\u089f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]/;

/** Indices into a letter's presentation forms. */
const ISOLATED = 0;
const FINAL = 1;
const INITIAL = 2;
const MEDIAL = 3;
type Form = typeof ISOLATED | typeof FINAL | typeof INITIAL | typeof MEDIAL;

/**
 * The joining type of each character, as `start,length` codepoint ranges in base 36, each start
 * counted from the end of the range before; anything absent is non-joining (U).
 */
const ENCODED_JOINING_TYPES: Readonly<Partial<Record<JoiningType, string>>> = {
  C: '18g,1;g2,3;4nb,1',
  D: '17k,1;5,1;1,1;1,5;4,d;1,7;1,2;z,2;8,g;i,12;1,2;9,1;1,1;1,2;14,3;2,1;28,9;3,f;2,4;1,1;2,3;2,6;7a,1;2,5;1,1;g,a;5,2;2,6;1,f',
  R: '17m,4;1,1;1,1;5,4;l,1;14,3;1,3;g,i;12,1;2,9;1,1;1,1;2,2;1,1;o,2;2x,3;f,2;4,1;1,2;3,2;6u,j;b,1;r,3;1,1;2,2;6,1',
  T: '174,b;1,1;1a,l;g,1;2t,7;2,6;2,2;1,4;bt,9;16,o;1,t;1clb,1',
};

/** Each letter's presentation forms, `[isolated, final, initial, medial]`; 0 where it has no such shape. */
const PRESENTATION_FORMS: Readonly<Record<number, readonly [number, number, number, number]>> = {
  1569: [65152, 0, 0, 0], 1570: [65153, 65154, 0, 0], 1571: [65155, 65156, 0, 0], 1572: [65157, 65158, 0, 0],
  1573: [65159, 65160, 0, 0], 1574: [65161, 65162, 65163, 65164], 1575: [65165, 65166, 0, 0], 1576: [65167, 65168, 65169, 65170],
  1577: [65171, 65172, 0, 0], 1578: [65173, 65174, 65175, 65176], 1579: [65177, 65178, 65179, 65180], 1580: [65181, 65182, 65183, 65184],
  1581: [65185, 65186, 65187, 65188], 1582: [65189, 65190, 65191, 65192], 1583: [65193, 65194, 0, 0], 1584: [65195, 65196, 0, 0],
  1585: [65197, 65198, 0, 0], 1586: [65199, 65200, 0, 0], 1587: [65201, 65202, 65203, 65204], 1588: [65205, 65206, 65207, 65208],
  1589: [65209, 65210, 65211, 65212], 1590: [65213, 65214, 65215, 65216], 1591: [65217, 65218, 65219, 65220], 1592: [65221, 65222, 65223, 65224],
  1593: [65225, 65226, 65227, 65228], 1594: [65229, 65230, 65231, 65232], 1601: [65233, 65234, 65235, 65236], 1602: [65237, 65238, 65239, 65240],
  1603: [65241, 65242, 65243, 65244], 1604: [65245, 65246, 65247, 65248], 1605: [65249, 65250, 65251, 65252], 1606: [65253, 65254, 65255, 65256],
  1607: [65257, 65258, 65259, 65260], 1608: [65261, 65262, 0, 0], 1609: [65263, 65264, 64488, 64489], 1610: [65265, 65266, 65267, 65268],
  1611: [65136, 0, 0, 65137], 1612: [65138, 0, 0, 0], 1613: [65140, 0, 0, 0], 1614: [65142, 0, 0, 65143],
  1615: [65144, 0, 0, 65145], 1616: [65146, 0, 0, 65147], 1617: [65148, 0, 0, 65149], 1618: [65150, 0, 0, 65151],
  1649: [64336, 64337, 0, 0], 1655: [64477, 0, 0, 0], 1657: [64358, 64359, 64360, 64361], 1658: [64350, 64351, 64352, 64353],
  1659: [64338, 64339, 64340, 64341], 1662: [64342, 64343, 64344, 64345], 1663: [64354, 64355, 64356, 64357], 1664: [64346, 64347, 64348, 64349],
  1667: [64374, 64375, 64376, 64377], 1668: [64370, 64371, 64372, 64373], 1670: [64378, 64379, 64380, 64381], 1671: [64382, 64383, 64384, 64385],
  1672: [64392, 64393, 0, 0], 1676: [64388, 64389, 0, 0], 1677: [64386, 64387, 0, 0], 1678: [64390, 64391, 0, 0],
  1681: [64396, 64397, 0, 0], 1688: [64394, 64395, 0, 0], 1700: [64362, 64363, 64364, 64365], 1702: [64366, 64367, 64368, 64369],
  1705: [64398, 64399, 64400, 64401], 1709: [64467, 64468, 64469, 64470], 1711: [64402, 64403, 64404, 64405], 1713: [64410, 64411, 64412, 64413],
  1715: [64406, 64407, 64408, 64409], 1722: [64414, 64415, 0, 0], 1723: [64416, 64417, 64418, 64419], 1726: [64426, 64427, 64428, 64429],
  1728: [64420, 64421, 0, 0], 1729: [64422, 64423, 64424, 64425], 1733: [64480, 64481, 0, 0], 1734: [64473, 64474, 0, 0],
  1735: [64471, 64472, 0, 0], 1736: [64475, 64476, 0, 0], 1737: [64482, 64483, 0, 0], 1739: [64478, 64479, 0, 0],
  1740: [64508, 64509, 64510, 64511], 1744: [64484, 64485, 64486, 64487], 1746: [64430, 64431, 0, 0], 1747: [64432, 64433, 0, 0],
};

/** The lam-alef ligatures by the pair they replace, `[isolated, final]`. */
const LIGATURES: Readonly<Record<string, readonly [number, number]>> = {
  '\u0644\u0622': [65269, 65270],
  '\u0644\u0623': [65271, 65272],
  '\u0644\u0625': [65273, 65274],
  '\u0644\u0627': [65275, 65276],
};

let joiningTypes: Map<number, JoiningType> | undefined;

function joiningType(codepoint: number): JoiningType {
  if (!joiningTypes) {
    joiningTypes = new Map();
    for (const [type, encoded] of Object.entries(ENCODED_JOINING_TYPES) as [JoiningType, string][]) {
      let end = 0;
      for (const range of encoded.split(';')) {
        const [delta, length] = range.split(',').map((value) => parseInt(value, 36)) as [number, number];
        const start = end + delta;
        for (let codepoint = start; codepoint < start + length; codepoint++) joiningTypes.set(codepoint, type);
        end = start + length;
      }
    }
  }
  return joiningTypes.get(codepoint) ?? 'U';
}

interface Letter {
  codepoint: number;
  type: JoiningType;
  form: Form | null;
}

/** Whether the character reaches forward to the next one. */
const joinsForward = (type: JoiningType) => type === 'D' || type === 'L' || type === 'C';
/** Whether the character reaches back to the one before. */
const joinsBackward = (type: JoiningType) => type === 'D' || type === 'R' || type === 'C';

function formFor(type: JoiningType, joinedBefore: boolean, joinedAfter: boolean): Form | null {
  if (type === 'D') return joinedBefore ? (joinedAfter ? MEDIAL : FINAL) : joinedAfter ? INITIAL : ISOLATED;
  if (type === 'R') return joinedBefore ? FINAL : ISOLATED;
  if (type === 'L') return joinedAfter ? INITIAL : ISOLATED;
  return null;
}

/** Letters join across the transparent marks between them. */
function assignLetterForms(letters: Letter[]): void {
  const visible = letters.filter((letter) => letter.type !== 'T');
  visible.forEach((letter, i) => {
    const joinedBefore = i > 0 && joinsForward(visible[i - 1]!.type);
    const joinedAfter = i + 1 < visible.length && joinsBackward(visible[i + 1]!.type);
    letter.form = formFor(letter.type, joinedBefore, joinedAfter);
  });
}

/** A mark takes the medial shape over a letter that joins on, else the isolated one. */
function assignMarkForms(letters: Letter[]): void {
  let letterJoinsForward = false;
  for (const letter of letters) {
    if (letter.type === 'T') letter.form = letterJoinsForward ? MEDIAL : ISOLATED;
    else letterJoinsForward = letter.form === INITIAL || letter.form === MEDIAL;
  }
}

/** Lam then alef (marks between them kept after) becomes their ligature, final when the lam was joined from before. */
function applyLigatures(letters: Letter[]): Letter[] {
  const result: Letter[] = [];
  for (let i = 0; i < letters.length; i++) {
    const lam = letters[i]!;
    if (lam.codepoint !== LAM) {
      result.push(lam);
      continue;
    }
    let next = i + 1;
    while (next < letters.length && letters[next]!.type === 'T') next++;
    const alef = letters[next];
    const ligature = alef && LIGATURES[String.fromCodePoint(LAM, alef.codepoint)];
    if (!ligature) {
      result.push(lam);
      continue;
    }
    const joinedBefore = lam.form === MEDIAL || lam.form === FINAL;
    result.push({ codepoint: ligature[joinedBefore ? 1 : 0], type: 'R', form: ISOLATED });
    result.push(...letters.slice(i + 1, next));
    i = next;
  }
  return result;
}

/** The letter's codepoint in its shape; a shape the letter has no codepoint for falls back to the isolated one. */
function presentationForm(letter: Letter): number {
  if (letter.form === null) return letter.codepoint;
  const forms = PRESENTATION_FORMS[letter.codepoint];
  if (!forms) return letter.codepoint;
  return forms[letter.form] || forms[ISOLATED] || letter.codepoint;
}

/** The text with its Arabic letters in the shapes they take, still in logical order; other text unchanged. */
export function applyArabicShaping(text: string): string {
  if (!ARABIC.test(text)) return text;
  const letters: Letter[] = [...text].map((char) => {
    const codepoint = char.codePointAt(0)!;
    return { codepoint, type: joiningType(codepoint), form: null };
  });
  assignLetterForms(letters);
  assignMarkForms(letters);
  return applyLigatures(letters)
    .map((letter) => String.fromCodePoint(presentationForm(letter)))
    .join('');
}
