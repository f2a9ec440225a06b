/**
 * Words dropped from lexical fields and queries: Lucene's English stop set, plus question
 * and auxiliary words that carry no topic ("how do I …"). Identifiers are matched whole,
 * so `is_valid` still matches even though `is` is dropped as a part.
 */
export const stopWords: ReadonlySet<string> = new Set([
  // Lucene EnglishAnalyzer defaults
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these',
  'they', 'this', 'to', 'was', 'will', 'with',
  // question and auxiliary words
  'what', 'which', 'who', 'whom', 'whose', 'how', 'why', 'when', 'where', 'does', 'do', 'did',
  'can', 'could', 'should', 'would', 'i', 'me', 'my', 'we', 'our', 'you', 'your', 'has', 'have',
  'had', 'been', 'being', 'were', 'am', 'its', 'from', 'so', 'than', 'too', 'very', 'just',
  'about', 'any', 'some', 'there', 'here', 'also',
]);
