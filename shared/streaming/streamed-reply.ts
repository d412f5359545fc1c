/**
 * A reply printed as the model produces it (issue 13): each chunk of the replying agent's
 * `step.delta` text is printed as it arrives; when the reply itself arrives, only what the chunks
 * did not already show is printed, so the screen ends with the same text (and line end) a
 * non-streaming print shows. Used by `goondan send`, `goondan run --input` and the connector runtime.
 *
 * The reply is the text of the turn's last step; text of earlier steps (said before a tool call)
 * stays on screen, a line break before the next step's text.
 */
export class StreamedReply {
  private stepId: string | undefined;
  private stepText = '';
  private shown = '';

  /** Whether any text has been shown. */
  get started(): boolean {
    return this.shown !== '';
  }

  /** What to print for a chunk of step `stepId`'s text. */
  chunk(stepId: string, text: string): string {
    let printed = text;
    if (stepId !== this.stepId) {
      this.stepId = stepId;
      this.stepText = '';
      printed = `${this.lineBreak()}${text}`;
    }
    this.stepText += text;
    this.shown += printed;
    return printed;
  }

  /**
   * What to print when the reply `output` arrives: the rest the chunks did not carry and a line end
   * (all of it when nothing streamed; all of it on a line of its own when it is not what streamed).
   */
  finish(output: string): string {
    let rest: string;
    if (!this.started) rest = output;
    else if (this.stepText !== '' && output.startsWith(this.stepText)) rest = output.slice(this.stepText.length);
    else rest = `${this.lineBreak()}${output}`;
    const shown = this.shown + rest;
    this.shown = shown;
    return shown.endsWith('\n') ? rest : `${rest}\n`;
  }

  /** What to print before a message that is not the reply (a failure): a line break after streamed text. */
  lineBreak(): string {
    return this.started && !this.shown.endsWith('\n') ? '\n' : '';
  }
}
