/** The bytes of an open file from its current position: `length` of them. */
export function sliceStream(
  file: Deno.FsFile,
  length: number,
): ReadableStream<Uint8Array> {
  // The file's own stream closes the file at its end or when cancelled.
  const reader = file.readable.getReader();
  let remaining = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) {
        controller.close(); // the file shrank since stat(): send what there is
        return;
      }
      if (value.byteLength >= remaining) {
        controller.enqueue(value.subarray(0, remaining));
        remaining = 0;
        controller.close();
        await reader.cancel();
        return;
      }
      remaining -= value.byteLength;
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
